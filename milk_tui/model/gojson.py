"""The session JSON of ``sessions show --json``: keys, state strings and token-map keys match
the Go milk session file, so tools written for it read ours (docs/interfaces.md)."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from milk_tui.model.session import Session


def rfc3339(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, tz=dt.UTC).isoformat().replace("+00:00", "Z")


def session_to_go_json(s: Session) -> dict[str, Any]:
    history = []
    for t in s.history:
        h: dict[str, Any] = {"role": t.role}
        if t.agent:
            h["agent"] = t.agent
        if t.agent_name:
            h["agent_name"] = t.agent_name
        h["content"] = t.content
        if t.thinking:
            h["thinking"] = t.thinking
        if t.tool_calls:
            h["tool_calls"] = [
                {"id": c.id, "name": c.name, "arguments": c.arguments} for c in t.tool_calls
            ]
        h["timestamp"] = rfc3339(t.timestamp)
        history.append(h)
    tokens = {
        f"{u.model}\x00{u.role}": {
            "model": u.model,
            "agent": u.role,
            "prompt": u.prompt,
            "completion": u.completion,
            **({"cache_read": u.cache_read} if u.cache_read else {}),
            **({"cache_creation": u.cache_creation} if u.cache_creation else {}),
        }
        for u in s.tokens.values()
    }
    out: dict[str, Any] = {
        "id": s.id,
        "name": s.name,
        "cwd": s.cwd,
        "created_at": rfc3339(s.created_at),
        "last_used": rfc3339(s.last_used),
        "state": s.state.value,
        "history": history,
        "current_need": s.current_need,
        "current_need_set_at": s.current_need_set_at,
        "claude_session_id": s.escalation_session_id,
        "escalation_brief": s.escalation_brief,
        "last_local_summary": s.last_local_summary,
        "last_claude_summary": s.last_escalation_summary,
        "escalation_nonce": s.escalation_nonce,
        "primary_nonce": s.primary_nonce,
        "memory_instruction_injected_at": s.memory_instruction_injected_at,
        "tokens": tokens,
    }
    return out
