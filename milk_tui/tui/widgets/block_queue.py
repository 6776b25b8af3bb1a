"""The closed blocks of a streaming reply, and the queue of those still to render.

A closed block renders on the event loop at once while the frame has budget left
(``SYNC_BUDGET_S``); otherwise it is queued with a plain placeholder and rendered later,
in slices of the same size between frames — or, when one block is too long for a slice,
in a worker thread (Rich renders a block in one call; it cannot be split).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from textual.strip import Strip

from milk_tui.tui.widgets.md_blocks import FENCE_KINDS, place, render_block
from milk_tui.tui.widgets.md_render import Palette
from milk_tui.tui.widgets.render_thread import in_thread
from milk_tui.tui.widgets.stream_pace import SLICE_BUDGET_S, others_due

SYNC_BUDGET_S = 0.003
"""Closed blocks rendered on the event loop per frame, at most.  A frame's other work
(finding block ends, the open block: 2–6 ms) and the screen update it asks for (5–10 ms)
can run back to back with it before a key is looked at; 8 ms made that 25–40 ms."""
DONE_BUDGET_S = 0.005
"""A slice of the queue once the reply has ended: no frames (nor the screen updates they
ask for) come between slices any more, so a slice can be longer; with 3 ms slices to the
end a 20,000-chunk Markdown reply took 1.4× main's time to finish."""
SYNC_CHARS = {"text": 2_500, "fence": 500}
"""A closed block longer than this cannot render within one slice: it renders in a worker
thread."""
DRAIN_PAUSE_S = 0.0003
"""Pause between two slices of queued block renders: a timer, so that callbacks already
due (a key's handling, a frame) run first — the event loop runs due timers in the order
of their deadlines, and theirs are earlier; short, so that the queue keeps its pace (at
1 ms, a 20,000-chunk Markdown reply spent ~0.25 s in these pauses)."""
DRAIN_SHOW_S = 0.25
"""Queued blocks, once rendered, are shown at the next streamed frame, or once this much
rendering (CPU time, so that a loaded machine does not repaint more often) was done with
no frame for as long: each showing costs a layout and a repaint of the conversation
(~10 ms of CPU at 120×40, more for a long reply)."""


def cost_class(kind: str) -> str:
    return "fence" if kind in FENCE_KINDS else "text"


@dataclass(slots=True)
class Block:
    kind: str
    source: str
    lines: tuple[Strip, ...]
    final: bool
    """False while it waits to be rendered (``lines`` are a plain placeholder)."""
    index: int
    """Its position among the reply's closed blocks."""


def is_small(kind: str, source: str) -> bool:
    """Whether a block renders within one slice."""
    return len(source) <= SYNC_CHARS[cost_class(kind)]


class BlockQueue:
    """The reply's closed blocks in order, where each one's lines start, and the queue."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.at: list[int] = []
        """Where each closed block's lines (separator included) start in the stable lines."""
        self.pending: list[Block] = []
        self.cut = False
        """Whether the last slice stopped early because another callback was due."""

    @property
    def last_kind(self) -> str | None:
        return self.blocks[-1].kind if self.blocks else None

    def renders_now(self, kind: str, source: str, frame_t0: float, budget: float) -> bool:
        """Whether a block that just closed fits in what is left of this frame's budget."""
        return is_small(kind, source) and time.perf_counter() - frame_t0 < budget

    def add(self, block: Block, fixed: list[Strip]) -> None:
        """Append a closed block (rendered or a placeholder) after the stable lines."""
        prev = self.last_kind
        self.blocks.append(block)
        self.at.append(len(fixed))
        place(prev, block.lines, fixed)

    async def render_next(self, width: int, palette: Palette, *, ended: bool) -> list[Block]:
        """Render the next slice of the queue: the head in a thread when it is too long
        for a slice, else the small blocks that fit in the budget (``SLICE_BUDGET_S``, or
        ``DONE_BUDGET_S`` once the reply has ``ended``), stopping after the first block
        once another callback of the loop is due (``stream_pace.others_due``)."""
        budget = DONE_BUDGET_S if ended else SLICE_BUDGET_S
        done: list[Block] = []
        self.cut = False
        head = self.pending[0]
        if not is_small(head.kind, head.source):
            head.lines = await in_thread(render_block, head.source, width, palette)
            done.append(head)
        else:
            start = time.perf_counter()
            for block in self.pending:
                if not is_small(block.kind, block.source) or time.perf_counter() - start > budget:
                    break
                block.lines = render_block(block.source, width, palette)
                done.append(block)
                if others_due():  # a key waits one block's render, not the budget
                    self.cut = True
                    break
        for block in done:
            block.final = True
        del self.pending[: len(done)]
        return done

    def swap_in(self, rendered: list[Block], fixed: list[Strip], open_lines: int) -> int:
        """Replace the placeholders of freshly rendered blocks with their lines; returns
        the first line that changed."""
        at = self.at
        low = len(fixed)
        for block in rendered:
            i = block.index
            start = at[i]
            end = at[i + 1] if i + 1 < len(at) else len(fixed) - open_lines
            placed: list[Strip] = []
            place(self.blocks[i - 1].kind if i else None, block.lines, placed)
            fixed[start:end] = placed
            delta = len(placed) - (end - start)
            if delta:
                for j in range(i + 1, len(at)):
                    at[j] += delta
            low = min(low, start)
        return low
