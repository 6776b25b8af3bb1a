"""Where the blocks of a streaming Markdown reply end.

The text not yet cut into closed blocks is the open region.  When complete lines arrive
that may have ended a block (``may_close``), markdown-it's block parser runs over the
region's complete lines; every block but its last one is closed and cut off the region.
"""

from __future__ import annotations

from dataclasses import dataclass

from milk_tui.tui.widgets.md_blocks import block_spans, fence_closed, may_close


@dataclass(frozen=True, slots=True)
class Closed:
    kind: str
    source: str
    end: int
    """Where it ends in the open region as it was before the cut."""


class BlockScan:
    """The open region and what is known about its first block."""

    def __init__(self) -> None:
        self.open = ""
        """Source of the open region (Markdown: from the first line of the open block)."""
        self.scan = 0
        """Offset in ``open`` up to which complete lines were looked at."""
        self.open_kind = "paragraph_open"

    def cut_closed(self, *, final: bool) -> list[Closed]:
        """Cut every block that the text so far has closed (all of them when final) off
        the open region, in order."""
        open_ = self.open
        if final:
            region = open_
        else:
            last_nl = open_.rfind("\n")
            if last_nl < self.scan:
                return []
            new, self.scan = open_[self.scan : last_nl + 1], last_nl + 1
            if not may_close(self.open_kind, new, last_nl + 1):
                return []
            region = open_[: last_nl + 1]
        spans = block_spans(region)
        if not spans:
            return []
        closing = spans if final else spans[:-1]
        if not final:
            last = spans[-1]
            self.open_kind = last.kind
            if last.kind == "fence" and fence_closed(region, last.start, last.end):
                self.open_kind = "fence_closed"
        if not closing:
            return []
        lines = region.splitlines(keepends=True)
        starts = [0]
        for ln in lines:
            starts.append(starts[-1] + len(ln))
        closed = [Closed(s.kind, "".join(lines[s.start : s.end]), starts[s.end]) for s in closing]
        rest = len(open_) if final else starts[spans[-1].start]
        self.open = open_[rest:]
        self.scan = max(0, self.scan - rest)
        return closed
