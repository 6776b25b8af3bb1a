"""Which context mode an escalation turn runs in, and the fresh-start downgrade.

The rules: docs/adr/0002-fresh-start-when-returning-on-stale-context.md.

Kept apart from the dispatcher so the decision is a pure function of the session and
config that tests can pin row by row.  The same plan serves the Claude CLI path (resume or
not) and the HTTP/Bedrock path (history scoped to the last escalation boundary or not).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from milk_tui.agents.base import ContextMode
from milk_tui.model.session import Session, State

DowngradeReason = Literal["need_changed", "turn_gap"]


@dataclass(frozen=True)
class HandoffPlan:
    mode: ContextMode
    downgraded: bool = False
    reasons: list[DowngradeReason] = field(default_factory=list)
    resume_session_id: str = ""
    """CLI only: the conversation to ``--resume``; "" means a fresh ``--session-id``."""
    history_start: int = 0
    """HTTP/Bedrock only: index into history where the messages start (stale return → boundary)."""
    local_turns_since: int = 0


def plan_escalation(
    session: Session, turn_gap_threshold: int, *, forced_fresh: bool = False
) -> HandoffPlan:
    """Precedence: forced fresh, waiting question (resume), no primary turn since the last
    escalation (continuation), never escalated (first), else returning — downgraded to a
    fresh start when the need changed or the turn gap reached the threshold.

    ``turn_gap_threshold`` is already resolved (0 disables the gap check); the
    need-staleness check cannot be disabled.
    """
    sid = session.escalation_session_id
    ever = session.escalation_ever_active()
    gap = session.local_turns_since_last_escalation()
    if forced_fresh:
        start = session.last_escalation_boundary() if ever else 0
        return HandoffPlan(mode="first", history_start=start, local_turns_since=gap)
    if session.state == State.ESCALATION_WAITING and sid:
        return HandoffPlan(mode="resume", resume_session_id=sid, local_turns_since=gap)
    if sid and gap == 0:
        return HandoffPlan(mode="continuation", resume_session_id=sid, local_turns_since=gap)
    if not (sid or ever):
        return HandoffPlan(mode="first")
    reasons: list[DowngradeReason] = []
    if session.need_changed_since_last_escalation():
        reasons.append("need_changed")
    if turn_gap_threshold > 0 and gap >= turn_gap_threshold:
        reasons.append("turn_gap")
    if reasons:
        return HandoffPlan(
            mode="first",
            downgraded=True,
            reasons=reasons,
            history_start=session.last_escalation_boundary() if ever else 0,
            local_turns_since=gap,
        )
    return HandoffPlan(mode="returning", resume_session_id=sid, local_turns_since=gap)
