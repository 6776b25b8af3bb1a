"""A turn's figures from the lines a headless run prints (``--output-format stream-json``).

milk-tui's lines are bus events (``parse_event``, docs/interfaces.md "Bus events"); the
Claude Code CLI's are its own ``stream-json`` messages (``assistant`` with ``tool_use``
blocks, one ``result`` with ``usage`` and ``total_cost_usd``).  A line that is neither is
ignored: a figure is never guessed from text.
"""

from __future__ import annotations

import json
from typing import Any

from milk_tui.eval.records import RoleTokens, TurnRecord
from milk_tui.model import events as ev


def fold_milk_line(rec: TurnRecord, line: str, text: list[str]) -> None:
    """Add one stream-json line of ``milk-tui -p`` to ``rec`` (``text`` collects the
    answer's deltas, used only when the turn never completed)."""
    try:
        event = ev.parse_event(line)
    except (ValueError, TypeError, KeyError):
        return
    match event:
        case ev.RouteDecided(target=target, agent_name=agent, rule=rule, reason=reason):
            rec.route_rule, rec.route_reason = rule, reason
            rec.slot, rec.agent = target, agent
        case ev.EscalationStarted(downgraded=downgraded, reason=reason):
            rec.downgraded = rec.downgraded or downgraded
            if reason and reason not in rec.route_reason:
                rec.route_reason = f"{rec.route_reason}; {reason}" if rec.route_reason else reason
        case ev.Usage() as u:
            role = rec.roles.setdefault(u.role, RoleTokens())
            role.prompt_tokens += u.prompt_tokens
            role.completion_tokens += u.completion_tokens
            role.cached_tokens += u.cache_read
            role.cache_creation += u.cache_creation
            role.cost_usd += u.cost_usd
        case ev.ToolCall():
            rec.tool_calls += 1
        case ev.TextDelta(text=delta):
            text.append(delta)
        case ev.TurnCompleted(slot=slot, agent_name=agent, text=answer, self_escalated=handed):
            rec.slot, rec.agent, rec.text = slot, agent, answer
            rec.handed_off = rec.handed_off or handed
        case ev.TurnFailed(error=error, agent_name=agent):
            rec.error = error.splitlines()[0] if error.strip() else "the turn failed"
            rec.agent = agent or rec.agent
        case _:
            pass


def fold_claude_line(rec: TurnRecord, line: str) -> None:
    """Add one line of ``claude -p --output-format stream-json --verbose`` to ``rec``."""
    try:
        data: Any = json.loads(line)
    except ValueError:
        return
    if not isinstance(data, dict):
        return
    kind = data.get("type")
    if kind == "assistant":
        content = (data.get("message") or {}).get("content") or []
        rec.tool_calls += sum(
            1 for b in content if isinstance(b, dict) and b.get("type") == "tool_use"
        )
    elif kind == "result":
        usage = data.get("usage") or {}
        role = rec.roles.setdefault("claude-code", RoleTokens())
        role.prompt_tokens += _int(usage.get("input_tokens"))
        role.completion_tokens += _int(usage.get("output_tokens"))
        role.cached_tokens += _int(usage.get("cache_read_input_tokens"))
        role.cache_creation += _int(usage.get("cache_creation_input_tokens"))
        cost = data.get("total_cost_usd")
        role.cost_usd += float(cost) if isinstance(cost, (int, float)) else 0.0
        rec.text = str(data.get("result") or "")
        if data.get("is_error") or data.get("subtype") not in (None, "success"):
            rec.error = rec.error or f"claude: {data.get('subtype') or 'error'}: {rec.text[:200]}"


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def total(rec: TurnRecord) -> None:
    """The turn's totals: the sum over its roles (a classifier call costs the turn too)."""
    rs = rec.roles.values()
    rec.prompt_tokens = sum(r.prompt_tokens for r in rs)
    rec.completion_tokens = sum(r.completion_tokens for r in rs)
    rec.cached_tokens = sum(r.cached_tokens for r in rs)
    rec.cache_creation = sum(r.cache_creation for r in rs)
    rec.cost_usd = sum(r.cost_usd for r in rs)
