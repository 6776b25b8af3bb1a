"""Session state and the history queries every hand-off decision is made from.

The need marker is the 1-based position of the user turn in which it was recorded, and
loading a session never clears the need (docs/adr/0004-need-position-and-staleness.md).
Pure data + queries; persistence lives in ``storage``.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple

from milk_tui.model.attachment import AttachmentInfo
from milk_tui.model.summary_brick import build_brick, newest_brick
from milk_tui.model.turn_history import History, OlderCounts

PRIMARY: Final = "primary"
ESCALATION: Final = "escalation"

NEED_STALE_TURNS = 4
"""A need this many turns old (``need_turns_ago``) is labelled 'may already be fulfilled'."""

EMPTY_ESCALATION_BYTES = 200
"""An escalation slice with fewer bytes of answers keeps the old brick: a short reply says
too little to replace a real summary."""


class State(enum.StrEnum):
    ROUTING = "ROUTING"
    LOCAL = "LOCAL"
    ESCALATION = "ESCALATION"
    ESCALATION_WAITING = "ESCALATION_WAITING"


STATE_WORDS: dict[str, str] = {
    State.ROUTING: "ready",
    State.LOCAL: "primary",
    State.ESCALATION: "escalation",
    State.ESCALATION_WAITING: "escalation (waiting for your answer)",
}
"""What a person reads for each state; after an escalation asks a question, the next prompt
goes back to it.  The stored and JSON value stays the state's name."""


def handed_over(history: list[Turn], i: int) -> bool:
    """Whether ``history[i]`` is the escalation agent's copy of the prompt the primary had
    just handed over: a hand-off is stored as the primary's user and assistant turns, then
    a user turn of the escalation agent with the same text (engine/turn_commit.py).  The
    SQL twin is ``storage/history_read.HANDED_OVER``."""
    if i < 2:
        return False
    t, answer, asked = history[i], history[i - 1], history[i - 2]
    return (
        t.role == "user"
        and t.agent == ESCALATION
        and answer.is_assistant_of(PRIMARY)
        and asked.role == "user"
        and asked.agent == PRIMARY
        and asked.content == t.content
    )


class HistoryCounts(NamedTuple):
    """What the panes show that counts over a session's whole history (facade/views.py
    ``session_view``)."""

    records: int
    exchanges: int
    """Questions: user turns, a hand-off's two counted once (``Session.question_count``)."""
    need_question: int
    """Questions up to the turn the need was set in."""
    last_user_agent: str
    """The agent of the latest user turn that names one."""
    local_turns_since_escalation: int
    last_escalation_context: str
    """The orientation text of the latest escalation user turn that had one."""


@dataclass
class ToolCallRecord:
    id: str
    name: str
    arguments: str


@dataclass
class Turn:
    role: str  # user | assistant | tool_result
    content: str
    agent: str = ""  # primary | escalation | "" (legacy)
    agent_name: str = ""
    thinking: str = ""
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    timestamp: float = field(default_factory=time.time)
    context_text: str = ""
    """For escalation user turns: the exact orientation text the agent was given."""
    attachments: list[AttachmentInfo] = field(default_factory=list)
    """User turns: the files sent with the prompt (model/attachment.py; no bytes)."""

    def is_assistant_of(self, agent: str) -> bool:
        return self.role == "assistant" and self.agent == agent


@dataclass
class TokenUsage:
    model: str
    role: str
    prompt: int = 0
    completion: int = 0
    cache_read: int = 0
    cache_creation: int = 0
    cost_usd: float = 0.0

    def add(
        self,
        prompt: int = 0,
        completion: int = 0,
        cache_read: int = 0,
        cache_creation: int = 0,
        cost_usd: float = 0.0,
    ) -> None:
        self.prompt += prompt
        self.completion += completion
        self.cache_read += cache_read
        self.cache_creation += cache_creation
        self.cost_usd += cost_usd


@dataclass
class Session:
    id: str
    cwd: str
    name: str = ""
    created_at: float = field(default_factory=time.time)
    last_used: float = field(default_factory=time.time)
    state: State = State.ROUTING
    history: list[Turn] = field(default_factory=list)
    current_need: str = ""
    current_need_set_at: int = 0
    need_producer: str = ""
    escalation_session_id: str = ""
    escalation_brief: str = ""
    last_local_summary: str = ""
    last_escalation_summary: str = ""
    last_local_summary_injected: str = ""
    escalation_nonce: str = ""
    primary_nonce: str = ""
    memory_instruction_injected_at: int = 0
    primary_agent: str = ""
    """The agent ``/agent switch`` chose for this session's primary ("": the config's)."""
    escalation_agent: str = ""
    """The agent ``/agent switch … as escalation`` chose for this session ("": the config's)."""
    routing_pin: str = ""
    """"primary" or "escalation" while ``/primary`` or ``/escalate`` pins; "" routes by rules."""
    tokens: dict[tuple[str, str], TokenUsage] = field(default_factory=dict)
    # Transient: never persisted, reset when a session is loaded.
    force_fresh_escalation: bool = False
    repetition_baseline: int = 0
    stored: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """The row as storage last read or wrote it (version, state fields): a commit merges
    another process's changes against it (storage/sessions.py)."""

    # ----- history queries ------------------------------------------------------------

    @property
    def unread(self) -> int:
        """Turns before the held tail not read from the store yet: a resumed session holds
        only its newest turns and reads older ones when something reaches them
        (model/turn_history.py)."""
        return getattr(self.history, "unloaded", 0)

    @property
    def records(self) -> int:
        """The session's turns, read or not (``unread``)."""
        return len(self.history)

    def history_counts(self) -> HistoryCounts:
        """The counts the panes show, over the history in memory (a whole one: the store
        gives them for a session opened tail first, ``SessionStore.history_counts``)."""
        last_user_agent = last_context = ""
        for t in reversed(self.history):
            if t.role != "user":
                continue
            if not last_user_agent:
                last_user_agent = t.agent
            if t.agent == ESCALATION and t.context_text:
                last_context = t.context_text
                break
        need_at = self.current_need_set_at
        return HistoryCounts(
            records=self.records,
            exchanges=self.question_count(),
            need_question=self.question_count(need_at),
            last_user_agent=last_user_agent,
            local_turns_since_escalation=self.local_turns_since_last_escalation(),
            last_escalation_context=last_context,
        )

    def _last_assistant_index(self, agent: str) -> int:
        h = self.history
        older, stop = _older(h)
        for i in range(len(h) - 1, stop - 1, -1):
            if h[i].is_assistant_of(agent):
                return i
        if older is None:
            return -1
        return older.get("last_escalation_answer" if agent == ESCALATION else "last_primary_answer")

    def last_escalation_boundary(self) -> int:
        """1 + index of the last escalation assistant turn; 0 when there is none."""
        return self._last_assistant_index(ESCALATION) + 1

    def last_local_boundary(self) -> int:
        return self._last_assistant_index(PRIMARY) + 1

    def _counted(self, field: str, pred: Callable[[Turn], bool]) -> int:
        """How many turns ``pred`` holds for: the older ones counted by the store when the
        history is held tail first (model/turn_history.py), the rest here."""
        h = self.history
        older, base = _older(h)
        counted = sum(1 for t in h[base:] if pred(t))
        return counted + (older.get(field) if older is not None else 0)

    def escalation_turn_count(self) -> int:
        return self._counted("escalation_answers", lambda t: t.is_assistant_of(ESCALATION))

    def local_turn_count(self) -> int:
        return self._counted("primary_answers", lambda t: t.is_assistant_of(PRIMARY))

    def user_turn_count(self) -> int:
        return self._counted("user", lambda t: t.role == "user")

    def question_count(self, upto: int | None = None) -> int:
        """Questions asked (in ``history[:upto]``): the prompts the user sent.  A prompt the
        primary handed to the escalation agent is stored twice (``handed_over``) and is
        still one question."""
        turns = self.history if upto is None else self.history[:upto]
        return sum(1 for i, t in enumerate(turns) if t.role == "user" and not handed_over(turns, i))

    def escalation_ever_active(self) -> bool:
        """Any turn (user or assistant) tagged escalation — deliberately wider than the boundary."""
        h = self.history
        older, base = _older(h)
        if any(t.agent == ESCALATION for t in h[base:]):
            return True
        return older is not None and older.get("escalation_tagged") > 0

    def local_turns_since_last_escalation(self) -> int:
        if not self.escalation_ever_active():
            return 0
        start = self.last_escalation_boundary()
        h = self.history
        older, base = _older(h)
        if older is not None and start <= base:  # the last escalation answer is an older turn
            held = sum(1 for t in h[base:] if t.is_assistant_of(PRIMARY))
            return older.get("primary_since_escalation_answer") + held
        return sum(1 for t in h[start:] if t.is_assistant_of(PRIMARY))

    def output_bytes_since(self, agent: str, k: int) -> int:
        """Bytes of ``agent``'s answers after its first ``k``."""
        h = self.history
        older, base = _older(h)
        n = 0
        if older is not None:  # the older turns only count when k does not reach past them
            n = older.get("escalation_answers" if agent == ESCALATION else "primary_answers")
            if n > k:
                n, base = 0, 0
        total = 0
        for t in h[base:]:
            if t.is_assistant_of(agent):
                if n >= k:
                    total += len(t.content.encode())
                n += 1
        return total

    # ----- current need ---------------------------------------------------------------

    def pending_turn_position(self) -> int:
        """1-based position the in-flight user turn will take; it is recorded only once the turn
        succeeds (docs/adr/0001-record-the-user-turn-after-the-agent-answers.md)."""
        return len(self.history) + 1

    def record_need(self, body: str, producer: str = "") -> bool:
        """Set the need; returns False when unchanged, so repeating a need publishes nothing."""
        body = body.strip()
        if not body or body == self.current_need:
            return False
        self.current_need = body
        self.current_need_set_at = self.pending_turn_position()
        self.need_producer = producer
        return True

    def need_turns_ago(self) -> int:
        """Turns since the need was set, the pending turn counted: records + 2 − set_at."""
        if self.current_need_set_at <= 0:
            return 0
        return self.records + 2 - self.current_need_set_at

    def need_is_stale(self) -> bool:
        return self.current_need_set_at > 0 and self.need_turns_ago() >= NEED_STALE_TURNS

    def need_changed_since_last_escalation(self) -> bool:
        if self.current_need_set_at <= 0 or not self.escalation_ever_active():
            return False
        pos = max(self.current_need_set_at - 1, 0)
        # No escalation answer at ``pos`` or after: the last one is before (the store's
        # counts know it for a long session's older turns).
        return self._last_assistant_index(ESCALATION) < pos

    # ----- tokens ---------------------------------------------------------------------

    def add_tokens(
        self,
        model: str,
        role: str,
        prompt: int = 0,
        completion: int = 0,
        cache_read: int = 0,
        cache_creation: int = 0,
        cost_usd: float = 0.0,
    ) -> TokenUsage | None:
        if not model or not role:
            return None
        if not (prompt or completion or cache_read or cache_creation or cost_usd):
            return None
        u = self.tokens.get((model, role))
        if u is None:
            u = self.tokens[(model, role)] = TokenUsage(model=model, role=role)
        u.add(prompt, completion, cache_read, cache_creation, cost_usd)
        return u

    def tokens_by_role_prefix(self, prefix: str) -> TokenUsage:
        agg = TokenUsage(model="*", role=prefix)
        for (_, role), u in self.tokens.items():
            if role == prefix or role.startswith(prefix + ":"):
                agg.add(u.prompt, u.completion, u.cache_read, u.cache_creation, u.cost_usd)
        return agg

    # ----- summary bricks ---------------------------------------------------------------

    def rebuild_summary_bricks(self, budget: int) -> None:
        self.last_local_summary = newest_brick(
            self.history, self.last_escalation_boundary(), PRIMARY, budget
        )
        esc_slice = self.history[self.last_local_boundary() :]
        esc_bytes = sum(len(t.content.encode()) for t in esc_slice if t.is_assistant_of(ESCALATION))
        if esc_bytes >= EMPTY_ESCALATION_BYTES:
            self.last_escalation_summary = build_brick(esc_slice, ESCALATION, budget)

    def to_go_json(self) -> dict[str, Any]:
        """The ``sessions show --json`` shape, keys as in the Go milk session file."""
        from milk_tui.model.gojson import session_to_go_json

        return session_to_go_json(self)


def ends_with_question(text: str) -> bool:
    """Whether an answer asks the user something: its last non-blank line ends with '?'."""
    for line in reversed(text.splitlines()):
        s = line.strip()
        if s:
            return s.endswith("?")
    return False


def _older(h: list[Turn]) -> tuple[OlderCounts | None, int]:
    """The store's counts over the turns a tail-first history did not hold at first, and how
    many those are (None, 0: count them all here)."""
    if isinstance(h, History) and (older := h.older_counts()) is not None:
        return older, h.base
    return None, 0
