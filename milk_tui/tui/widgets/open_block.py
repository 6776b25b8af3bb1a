"""The open block of a streaming Markdown reply, re-rendered as Markdown each frame.

Only while that stays cheap: a block longer than ``OPEN_CHARS`` for its kind, or one whose
render took longer than ``OPEN_BUDGET_S``, streams as plain text until it closes
(``plain_open.py``).
"""

from __future__ import annotations

import time

from textual.strip import Strip

from milk_tui.tui.widgets.block_queue import cost_class
from milk_tui.tui.widgets.md_blocks import is_blank
from milk_tui.tui.widgets.md_render import Palette, markdown_lines

OPEN_BUDGET_S = 0.006
"""Longest re-render of the open block per frame before it falls back to plain text."""
OPEN_CHARS = {"text": 3_000, "fence": 800}
"""Open blocks longer than this are not even tried as Markdown (Rich renders prose at
~2–3 µs a character and highlighted code at ~13 µs on a 2-core box)."""
OPEN_MIN_CHARS = 300
"""A slow render of an open block shorter than this is a one-off (Pygments loading a
lexer on the first code block), not a reason to stop formatting it."""


def too_long(source: str, kind: str) -> bool:
    """Whether an open block of this kind is too long to try as Markdown each frame."""
    return len(source) > OPEN_CHARS[cost_class(kind)]


def render_open(source: str, width: int, palette: Palette) -> tuple[list[Strip], bool]:
    """The open block's lines (no trailing blanks), and whether rendering it was too slow
    to repeat every frame."""
    t0 = time.perf_counter()
    lines = markdown_lines(source, width, palette)
    while lines and is_blank(lines[-1]):
        lines.pop()
    slow = time.perf_counter() - t0 > OPEN_BUDGET_S and len(source) > OPEN_MIN_CHARS
    return lines, slow
