"""The open block as incrementally wrapped plain text.

Thinking blocks stream plain, and so does a Markdown block too long to re-render each frame
(until it closes).  Complete wrapped lines are committed once to the widget's stable lines;
only the last, still-growing line is re-made per frame, so the cost of a frame does not
depend on how long the block already is.
"""

from __future__ import annotations

from rich.style import Style
from textual.strip import Strip

from milk_tui.tui.widgets.md_blocks import BLANK, brings_blank
from milk_tui.tui.widgets.md_render import plain_strip, wrap_offsets


def plain_lines(source: str, width: int, style: Style | None) -> list[Strip]:
    """``source`` wrapped to ``width`` as plain lines."""
    text = source.rstrip("\n")
    return [plain_strip(text[a:b].rstrip(), style) for a, b in wrap_offsets(text, width)]


class PlainOpen:
    """Which of the stable lines are the open block's committed plain lines."""

    def __init__(self) -> None:
        self.commit = 0
        """Offset in the open source up to which lines are committed."""
        self.count = 0
        """Plain lines of the open block at the end of the stable lines."""
        self.starts: list[int] = []
        """Where in the open source each committed line starts (the gap line has none)."""

    def wrap(
        self,
        source: str,
        fixed: list[Strip],
        prev_kind: str | None,
        width: int,
        style: Style | None,
        *,
        final: bool,
    ) -> list[Strip]:
        """Commit the complete wrapped lines of ``source`` not committed yet to ``fixed``;
        return the last, still-growing line (none when ``final``)."""
        rest = source[self.commit :]
        if not rest:
            return []
        if prev_kind is not None and not self.count and rest.strip():
            if brings_blank(prev_kind):
                fixed.append(BLANK)  # the gap before the open block
                self.count = 1
        spans = wrap_offsets(rest, width)
        keep = spans if final else spans[:-1]
        commit = self.commit
        for a, b in keep:
            fixed.append(plain_strip(rest[a:b].rstrip(), style))
            self.starts.append(commit + a)
        self.count += len(keep)
        if final:
            self.commit = len(source)
            return []
        a, b = spans[-1]
        self.commit += a
        return [plain_strip(rest[a:b].rstrip(), style)]

    def take(
        self, source: str, end: int, fixed: list[Strip], width: int, style: Style | None
    ) -> list[Strip]:
        """The plain lines already on screen for ``source[:end]``: the placeholder of a long
        block that closes while streaming as plain text (wrapping it again costs O(n))."""
        n = len(self.starts)
        lines = fixed[len(fixed) - n :] if n else []
        keep = [line for line, start in zip(lines, self.starts, strict=True) if start < end]
        if self.commit < end:
            keep.extend(plain_lines(source[self.commit : end], width, style))
        return keep

    def drop(self, fixed: list[Strip], styled: dict[int, Strip]) -> None:
        """Remove the open block's plain lines from ``fixed`` (and their styled copies)."""
        n = self.count
        if n:
            keep = len(fixed) - n
            del fixed[keep:]
            for y in [y for y in styled if y >= keep]:
                del styled[y]
        self.count = 0
        self.commit = 0
        self.starts = []
