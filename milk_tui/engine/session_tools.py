"""``get_session_context``: earlier turns of this session, on demand, for an API agent.

The request carries only a trimmed history; this tool lets the model page back through the
rest.  Filters apply in order: ``agent`` (that agent's turns, user turns kept), ``last_n``,
``pattern`` (case-insensitive substring).  ``turn_from``/``turn_to`` (1-based positions in
the session) return up to ``RANGE_MAX`` turns verbatim; otherwise the last
``VERBATIM_TURNS`` come verbatim and older ones as one-line summaries.  Every answer is
capped at ``RESULT_MAX_BYTES``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from milk_tui.agents.base import ToolOutcome, ToolSpec
from milk_tui.agents.tools.box import parse_arguments
from milk_tui.engine.memory_tools import cap
from milk_tui.model.session import Session, Turn

RESULT_MAX_BYTES = 8000
VERBATIM_TURNS = 10
RANGE_MAX = 5
COMPACT_CHARS = 80
TOOL_RESULT_CHARS = 300
COMPACT_FRAME_OVER = 5
"""More older turns than this get a header and footer around their one-liners."""

SPEC = ToolSpec(
    "get_session_context",
    "Read earlier turns of this conversation. Without arguments: the last 10 turns verbatim "
    "and older ones in one line each. turn_from/turn_to (1-based) page through any range "
    "verbatim (5 turns at most).",
    {
        "type": "object",
        "properties": {
            "last_n": {"type": "integer", "description": "only the last N turns"},
            "pattern": {"type": "string", "description": "only turns containing this text"},
            "agent": {"type": "string", "enum": ["primary", "escalation"]},
            "turn_from": {"type": "integer", "description": "first turn, 1-based"},
            "turn_to": {"type": "integer", "description": "last turn, 1-based"},
        },
        "required": [],
    },
    effect="read",
)


class SessionToolBox:
    """One per turn; reads the session's answered history when called."""

    def __init__(self, session: Session, max_bytes: int = RESULT_MAX_BYTES) -> None:
        self.session = session
        self.max_bytes = max_bytes

    def specs(self) -> list[ToolSpec]:
        return [SPEC]

    async def call(self, name: str, arguments: str) -> ToolOutcome:
        if name != SPEC.name:
            return ToolOutcome(f"unknown tool {name!r}", is_error=True)
        args = parse_arguments(name, arguments, SPEC)
        if isinstance(args, ToolOutcome):
            return args
        return ToolOutcome(cap(session_context(self.session, args), self.max_bytes))


def session_context(session: Session, query: Mapping[str, Any]) -> str:
    """The answer to one call; ``query`` holds the tool's (validated) arguments."""
    last_n, pattern, agent = query.get("last_n"), query.get("pattern"), query.get("agent")
    turn_from, turn_to = query.get("turn_from"), query.get("turn_to")
    turns = list(enumerate(session.history, start=1))
    if not turns:
        return "(no session history yet)"
    if agent:
        turns = [(i, t) for i, t in turns if t.role == "user" or t.agent == agent]
    if last_n and last_n > 0:
        turns = turns[-last_n:]
    if pattern:
        needle = pattern.lower()
        turns = [(i, t) for i, t in turns if needle in t.content.lower()]
    if turn_from and turn_from >= 1:
        last = min(turn_to or turn_from + RANGE_MAX - 1, turn_from + RANGE_MAX - 1)
        chosen = [(i, t) for i, t in turns if turn_from <= i <= last]
        if not chosen:
            return f"(no turns in {turn_from}–{last}; the session has {len(session.history)})"
        body = "\n".join(_verbatim(i, t) for i, t in chosen)
        return f"[turns {chosen[0][0]}–{chosen[-1][0]}, verbatim]\n{body}"
    if not turns:
        return "(no matching turns)"
    older, recent = turns[:-VERBATIM_TURNS], turns[-VERBATIM_TURNS:]
    lines = [_compact(i, t) for i, t in older]
    if len(older) > COMPACT_FRAME_OVER:
        lines = [
            f"[older history — {len(older)} turns, compact; use turn_from/turn_to for any "
            "of them verbatim]",
            *lines,
            "[end older history]",
        ]
    lines += [_verbatim(i, t) for i, t in recent]
    return "\n".join(lines)


def _speaker(t: Turn) -> str:
    if t.role == "user":
        return "User"
    if t.role == "tool_result":
        return "[tool result]"
    return t.agent_name or t.agent or "assistant"


def _verbatim(i: int, t: Turn) -> str:
    if t.role == "tool_result":
        text = t.content if len(t.content) <= TOOL_RESULT_CHARS else t.content[:TOOL_RESULT_CHARS]
        return f"[{i}] [tool result] {text}"
    lines = [f"[{i}] {_speaker(t)}: {t.content}"]
    for c in t.tool_calls:
        lines.append(f"[{_speaker(t)} tool call: {c.name}] {c.arguments}")
    return "\n".join(lines)


def _compact(i: int, t: Turn) -> str:
    text = " ".join(t.content.split())
    if len(text) > COMPACT_CHARS:
        text = text[:COMPACT_CHARS] + "…"
    return f"[{i}] {_speaker(t)}: {text}"
