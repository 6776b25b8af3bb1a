"""What one in-flight turn has produced so far, how to undo it, and how it ended.

A failed or cancelled turn leaves the session exactly as it was
(docs/adr/0001-record-the-user-turn-after-the-agent-answers.md), but the need is shown
live as agents emit it; so the turn snapshots the session's scalar state before it starts
and restores it on failure.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from milk_tui.agents.base import DeniedTool, Slot
from milk_tui.model.session import Session, TokenUsage, Turn

_ROLLBACK_FIELDS = (
    "state", "current_need", "current_need_set_at", "need_producer", "escalation_session_id",
    "escalation_brief", "last_local_summary", "last_escalation_summary",
    "last_local_summary_injected", "escalation_nonce", "primary_nonce",
    "memory_instruction_injected_at", "force_fresh_escalation", "repetition_baseline",
)  # fmt: skip


@dataclass
class SessionSnapshot:
    values: dict[str, object]
    history_len: int
    tokens: dict[tuple[str, str], TokenUsage]

    @classmethod
    def take(cls, s: Session) -> SessionSnapshot:
        return cls(
            {f: getattr(s, f) for f in _ROLLBACK_FIELDS}, len(s.history), copy.deepcopy(s.tokens)
        )

    def restore(self, s: Session) -> None:
        for f, v in self.values.items():
            setattr(s, f, v)
        del s.history[self.history_len :]
        s.tokens = self.tokens

    def restore_field(self, s: Session, name: str) -> None:
        """Put back one field as it was when the snapshot was taken."""
        setattr(s, name, self.values[name])


CUT_AT_LIMIT = frozenset({"length", "max_tokens", "max_output_tokens"})
"""Finish reasons meaning the token limit ended the reply: chat completions (and llama.cpp)
``length``, Anthropic and Bedrock ``max_tokens``, the Responses API's incomplete reason."""


@dataclass
class TurnScratch:
    text: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)
    usage: list[TokenUsage] = field(default_factory=list)
    percepts: list[tuple[str, str | None]] = field(default_factory=list)
    """(body, explicit consumer or None to read the @name: hint) — recorded only on success."""
    backend_session_id: str = ""
    escalation_reason: str = ""
    cost_usd: float = 0.0
    denials: tuple[DeniedTool, ...] = ()
    """Tool calls the agent was refused (shown after the turn, to grant and retry)."""
    finish_reason: str = ""
    """Why the backend ended the reply (``stop``, ``length``, ``max_tokens`` …); "" unknown."""

    def reply_text(self) -> str:
        """The visible reply, trimmed: the tag machine already removed the tags."""
        return "".join(self.text).strip()

    def completion_tokens(self) -> int:
        return sum(u.completion for u in self.usage)

    def joined_thinking(self) -> str:
        return "".join(self.thinking)


@dataclass
class PendingHandoff:
    """The primary's half of a self-escalated turn, held back until the escalation succeeds.

    The history an agent sees never contains the prompt it is answering; if the primary's
    user turn were committed before the hand-off, the escalation agent would be handed the
    current prompt twice.  So both halves are committed in one transaction at the end, and
    a failed escalation records neither
    (docs/adr/0001-record-the-user-turn-after-the-agent-answers.md).
    """

    turns: list[Turn]
    usage: list[TokenUsage]
    scratch: TurnScratch
    snapshot: SessionSnapshot


@dataclass
class TurnOutcome:
    ok: bool
    slot: Slot | None = None
    text: str = ""
    error: str = ""
    cancelled: bool = False
    escalation_reason: str = ""
    handoff: PendingHandoff | None = None
    completion_tokens: int = 0
    """Tokens the model wrote for this reply (tool rounds included)."""
