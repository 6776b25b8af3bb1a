"""The conversation as data: what the windowed transcript mounts (``/export`` writes the
session itself: facade/export.py).

Widgets exist only for the mounted window; every block also lives here as a small
dataclass so that a 2,000-turn session costs a list, not 4,000 widgets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from milk_tui.model.session import Turn
from milk_tui.model.terminal_text import inert_copy
from milk_tui.tui.widgets.attachment_chips import encode_chips

Kind = Literal["user", "reply", "thinking", "tool", "marker", "notice", "warning", "error"]


@dataclass
class Item:
    kind: Kind
    text: str = ""
    agent_name: str = ""
    slot: str = ""
    detail: str = ""
    """user: route reason · tool: result · marker: unused."""
    extra: dict[str, str] = field(default_factory=dict)


def inert_items(turns: list[Turn], first: int = 1) -> list[Item]:
    """Transcript items of ``turns`` (``first``: as ``items_from_history``'s), made inert."""
    return [inert_copy(it) for it in items_from_history(turns, first)]


def items_from_history(history: list[Turn], first: int = 1) -> list[Item]:
    """``first``: the 1-based position of ``history[0]`` in the session (a tail's offset)."""
    out: list[Item] = []
    for pos, t in enumerate(history, start=first):
        if t.role == "user":
            out.append(
                Item(
                    "user",
                    t.content,
                    agent_name=t.agent_name,
                    slot=t.agent,
                    extra={"turn": str(pos), **_chips(t)},
                )
            )
        elif t.role == "assistant":
            for c in t.tool_calls:
                out.append(Item("tool", c.arguments, agent_name=c.name, slot=t.agent))
            if t.thinking:
                out.append(Item("thinking", t.thinking, agent_name=t.agent_name, slot=t.agent))
            if t.content:
                out.append(Item("reply", t.content, agent_name=t.agent_name, slot=t.agent))
        elif t.role == "tool_result":
            out.append(Item("tool", "", agent_name="result", detail=t.content))
    return out


def _chips(t: Turn) -> dict[str, str]:
    return {"chips": encode_chips(t.attachments)} if t.attachments else {}


def screenful(items: list[Item], width: int, height: int, most: int) -> int:
    """How many of the last ``items`` fill ``height`` rows ``width`` columns wide, at least
    one and at most ``most``: an estimate from their text (a row per ``width`` characters
    of each line, two more per block for its header and margin), with half a screen more
    in case the Markdown is shorter than its source."""
    rows = n = 0
    width = max(1, width)
    for it in reversed(items):
        if n >= most or rows >= height + height // 2:
            break
        n += 1
        rows += 2 + sum(len(line) // width + 1 for line in it.text.split("\n"))
    return max(1, n)
