"""The marker between two agents' replies, as the transcript and the escalation pane write
it: which agent, in which hand-off mode, and why a returning one was downgraded."""

from __future__ import annotations

from milk_tui.model import events as ev

MODE_LABEL = {
    "first": "fresh start",
    "returning": "returning",
    "resume": "resume",
    "continuation": "continuation",
}
REASON_LABEL = {"need_changed": "need changed", "turn_gap": "{n} local turns since"}


def handoff_text(e: ev.EscalationStarted) -> str:
    """``→ claude · fresh start · need changed`` — the marker between two agents' replies."""
    parts = [f"→ {e.agent_name}", MODE_LABEL.get(e.mode, e.mode)]
    if e.downgraded:
        reasons = [
            REASON_LABEL.get(r, r).format(n=e.local_turns_since) for r in e.downgrade_reasons
        ]
        parts.append("downgraded: " + (", ".join(reasons) or "returning not possible"))
    if e.resume and e.escalation_session_id:
        parts.append(f"session {e.escalation_session_id[:8]}")
    return " · ".join(parts)
