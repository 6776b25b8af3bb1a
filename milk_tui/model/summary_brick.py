"""Summary bricks: the newest turns of one agent rendered as a compact text block that fits
a budget, which the other agent is given as orientation (engine/escalation_context.py).

A brick is the longest run of the newest picked turns whose rendering fits; a long
session's older turns are not read for it when the newest ones already fill the budget
(``newest_brick``, model/turn_history.py)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from milk_tui.model.session import Turn

TOOL_RESULT_BRICK_BYTES = 500
"""Tool results are cut to their first 500 bytes in a brick, so one big output cannot fill it."""

_CSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def build_brick(turns: list[Turn], agent: str, budget: int) -> str:
    return _fit_brick(_brick_turns(turns, agent), budget)[0]


def newest_brick(history: list[Turn], start: int, agent: str, budget: int) -> str:
    """``build_brick(history[start:], agent, budget)``, reading only the newest turns it
    needs (a long session's older turns stay in the store, model/turn_history.py).  A
    window of the newest turns gives the same brick once the budget runs out at or after its
    first user or answer turn: from that turn on, the window picks the turns the whole slice
    picks (only a tool result's pick depends on what came before it)."""
    width = 512
    while True:
        lo = max(start, len(history) - width)
        picked = _brick_turns(history[lo:], agent)
        text, broke_at = _fit_brick(picked, budget)
        if lo == start:
            return text
        first = next((i for i, t in enumerate(picked) if t.role != "tool_result"), None)
        if first is not None and broke_at >= first:
            return text
        width *= 4


def _brick_turns(turns: list[Turn], agent: str) -> list[Turn]:
    collected: list[Turn] = []
    for t in turns:
        if t.role == "user" and t.agent in ("", agent):
            collected.append(t)
        elif t.is_assistant_of(agent):
            collected.append(t)
        elif t.role == "tool_result" and collected and collected[-1].is_assistant_of(agent):
            collected.append(t)
    return collected


def _fit_brick(collected: list[Turn], budget: int) -> tuple[str, int]:
    """The brick of the newest ``collected`` turns that fit, and the index of the turn the
    budget ran out at (-1: it never did)."""
    broke_at = -1
    # The oldest turns go first until the rest fits.  Rendering every candidate is
    # quadratic in a long session, so skip the turns that cannot fit without rendering:
    # user, reply and tool-result lines are written whatever precedes them, so their
    # lengths summed from the newest turn back are a lower bound of each suffix's size.
    start, floor = len(collected), 0
    while start > 0:
        floor += _fixed_len(collected[start - 1])
        if floor > budget:
            broke_at = start - 1
            break
        start -= 1
    while start < len(collected):
        rendered = _render_turns(collected[start:])
        if len(rendered) <= budget:
            return rendered, broke_at
        start += 1
    return "", broke_at


def _fixed_len(t: Turn) -> int:
    """Length of the lines ``_render_turns`` writes for ``t`` whatever its neighbours are."""
    return 0 if t.role == "assistant" and t.tool_calls else len(_render_turns([t]))


def _render_turns(turns: list[Turn]) -> str:
    out: list[str] = []
    run_name, run_len = "", 0

    def close_run() -> None:
        nonlocal run_name, run_len
        if run_len > 1:
            out.append(f"  [{run_len - 1} more {run_name} calls collapsed]\n")
        run_name, run_len = "", 0

    for t in turns:
        if t.role == "user":
            close_run()
            out.append(f"User: {t.content}\n")
        elif t.role == "assistant" and t.tool_calls:
            for c in t.tool_calls:
                if c.name == run_name:
                    run_len += 1
                    continue
                close_run()
                run_name, run_len = c.name, 1
                out.append(f"[Tool: {c.name}] {c.arguments}\n")
        elif t.role == "assistant":
            close_run()
            out.append(f"Assistant ({t.agent}): {_CSI.sub('', t.content)}\n")
        elif t.role == "tool_result":
            body = t.content.encode()
            text = t.content
            if len(body) > TOOL_RESULT_BRICK_BYTES:
                text = body[:TOOL_RESULT_BRICK_BYTES].decode(errors="ignore") + "\n... (truncated)"
            out.append(f"[Tool result] {text}\n")
    close_run()
    return "".join(out)
