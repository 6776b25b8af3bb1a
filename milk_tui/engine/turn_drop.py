"""Forgetting the last exchange (``/drop``): the last prompt and every record it produced,
removed from the live session and the store in one transaction.

An exchange is the last user turn and what follows it; a hand-off stored the prompt twice
(the primary's half, then the escalation's), and both halves go.  What the exchange caused
elsewhere stays: token usage (it was spent), the facts it recorded (they are the memory's,
``/forget`` removes them) and the need it set, whose age counts from the dropped position.
When an escalation answer is dropped, the escalation agent's own resumed session (the
Claude CLI keeps one) still holds it, so the next hand-off starts fresh
(docs/adr/0028-day-one-commands-and-otel.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from milk_tui.engine.dispatch_state import DispatchState
from milk_tui.model.nonce import new_nonce
from milk_tui.model.session import ESCALATION, PRIMARY, State, Turn
from milk_tui.storage.db import StorageError


@dataclass(frozen=True)
class DroppedExchange:
    prompt: str
    records: int
    """Stored records removed (user turns, replies, tool results)."""
    escalation_reset: bool = False
    """An escalation answer went: the next hand-off starts a fresh escalation session."""


def last_exchange_start(history: list[Turn]) -> int:
    """Index of the first record of the last exchange, or -1 when there is none."""
    users: list[int] = []  # the last two user turns, newest first: a long session's older
    for i in range(len(history) - 1, -1, -1):  # turns stay in the store (model/turn_history.py)
        if history[i].role == "user":
            users.insert(0, i)
            if len(users) == 2:
                break
    if not users:
        return -1
    start = users[-1]
    last = history[start]
    if last.agent == ESCALATION and len(users) > 1:
        before = history[users[-2]]
        if before.agent == PRIMARY and before.content == last.content:
            start = users[-2]  # the primary's half of the same hand-off
    return start


def drop_last_exchange(state: DispatchState) -> DroppedExchange | None:
    """Remove the last exchange; None when the session has none.  Raises ``StorageError``
    (the live session is left as it was)."""
    s = state.session
    start = last_exchange_start(s.history)
    if start < 0:
        return None
    dropped = s.history[start:]
    saved = (s.state, s.escalation_brief, s.current_need_set_at, s.force_fresh_escalation,
             s.escalation_nonce, s.last_local_summary, s.last_escalation_summary)  # fmt: skip
    del s.history[start:]
    answered_by_escalation = any(t.is_assistant_of(ESCALATION) for t in dropped)
    if answered_by_escalation:
        s.force_fresh_escalation = True
        s.escalation_nonce = new_nonce()
        if s.state == State.ESCALATION_WAITING:
            s.state, s.escalation_brief = State.ROUTING, ""
    s.current_need_set_at = min(s.current_need_set_at, s.pending_turn_position())
    slot = state.primary or state.escalation
    if slot is not None:
        s.rebuild_summary_bricks(state.config.resolve_context_budget(slot.config))
    try:
        state.store.drop_turns(s, dropped)
    except StorageError:
        s.history.extend(dropped)
        (s.state, s.escalation_brief, s.current_need_set_at, s.force_fresh_escalation,
         s.escalation_nonce, s.last_local_summary, s.last_escalation_summary) = saved  # fmt: skip
        raise
    return DroppedExchange(dropped[0].content, len(dropped), answered_by_escalation)
