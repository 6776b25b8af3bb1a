"""One status line that fits its width by giving up its least useful parts first."""

from __future__ import annotations

from rich.text import Text

MIN_CUT_CELLS = 10
"""A part cut shorter than this says nothing ("· why: d…"); it is left out instead."""

KEEP = 0
"""Rank of parts never cut (the state, a hint such as the quit prompt, the token totals):
if they alone are too wide, the line's end gives way ("…")."""


def fit(parts: list[tuple[int, Text]], width: int) -> Text:
    """``parts`` as ``(rank, text)`` in line order, joined; while the line is wider than
    ``width``, the parts of the highest rank are cut (ending in "…") or left out, the
    rightmost first, then those of the next rank, down to rank 1."""
    texts = [t.copy() for _, t in parts]
    over = sum(t.cell_len for t in texts) - width
    for rank in sorted({r for r, _ in parts if r != KEEP}, reverse=True):
        for i in reversed(range(len(parts))):
            if over <= 0:
                break
            if parts[i][0] != rank or not texts[i]:
                continue
            keep = texts[i].cell_len - over
            if keep >= MIN_CUT_CELLS:
                texts[i].truncate(keep, overflow="ellipsis")
                over = 0
            else:
                over -= texts[i].cell_len
                texts[i] = Text()
    line = Text(no_wrap=True, overflow="ellipsis")
    for t in texts:
        line.append_text(t)
    return line
