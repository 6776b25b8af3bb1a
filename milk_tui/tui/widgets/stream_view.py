"""A Line-API widget that shows text as it streams, at a cost independent of its length.

Markdown replies are cut into their top-level blocks (``md_blocks.py``).  Per coalesced
frame: append the new text; if new complete lines may have ended a block, parse the open
region (``block_scan.py``) and render each block that closed, exactly once; then
re-render only the open block, as Markdown (``open_block.py``), so the reply is formatted
while it arrives.  The finished reply is the join of its blocks' renders — the same lines
as a one-shot render — so finishing renders only what was still open.

No frame holds the event loop long: a frame's text beyond a few lines, and closed blocks
that do not fit in the frame's budget, are left to the view's worker, which consumes and
renders them in slices that never run next to a screen update (``stream_work.py``,
``block_queue.py``), closed blocks shown as plain text meanwhile; an open block too big
to re-render within ``OPEN_BUDGET_S`` streams as incrementally wrapped plain text until it
closes (``plain_open.py``), as plain streams (thinking blocks) always do.  Painting
touches only the visible lines; the mouse selects them (``selectable_lines.py``)."""

from __future__ import annotations

import time

from rich.style import Style
from textual.geometry import Region, Size
from textual.strip import Strip

from milk_tui.tui.widgets.block_queue import SYNC_BUDGET_S, Block, BlockQueue
from milk_tui.tui.widgets.block_scan import BlockScan
from milk_tui.tui.widgets.md_blocks import needs_whole_render, place, render_block, trim_blank_edges
from milk_tui.tui.widgets.md_render import Palette, render_markdown
from milk_tui.tui.widgets.open_block import render_open, too_long
from milk_tui.tui.widgets.plain_open import PlainOpen, plain_lines
from milk_tui.tui.widgets.render_thread import in_thread
from milk_tui.tui.widgets.selectable_lines import SelectableLines, highlighted, with_offsets
from milk_tui.tui.widgets.stream_pace import FIRST_PIECE_CHARS, PIECE_CHARS, Backlog, painted
from milk_tui.tui.widgets.stream_work import run_work

THREAD_RENDER_CHARS = 16_000
"""Above this size a one-shot render (a cut reply, one with link references) runs in a
thread: a 20,000-chunk reply takes ~0.1–0.3 s to render, longer than the key-wait budget."""


class StreamView(SelectableLines):
    """Streaming text; ``markdown=False`` keeps everything plain (thinking blocks)."""

    DEFAULT_CSS = """
    StreamView { height: auto; width: 1fr; }
    """

    def __init__(
        self,
        text: str = "",
        *,
        markdown: bool = True,
        done: bool = False,
        text_style: Style | None = None,
        palette: Palette | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.markdown = markdown
        self.line_style = text_style
        self.palette = palette or Palette()
        self._parts: list[str] = [text] if text else []
        self._done = done
        self._width = 0
        self._gen = 0
        self._drain_gen = -1
        self._shown_at = 0.0
        """When the lines were last handed to Textual for a repaint."""
        self._layout_due = False
        """Lines changed height since that repaint (a queued block was swapped in)."""
        self._reset_render()
        self.rendered_final = False
        """True once the whole finished reply is on screen, fully rendered (benchmarks)."""
        self.block_renders = 0
        """Closed blocks rendered so far (tests: each block renders once)."""
        self.open_renders = 0
        """Markdown re-renders of the open block (tests)."""

    # ----- public ----------------------------------------------------------------------

    @property
    def text(self) -> str:
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    @property
    def done(self) -> bool:
        return self._done

    @property
    def rendering(self) -> bool:
        """Finished, shown, and not fully rendered yet (queued blocks, a render thread)."""
        return self._done and bool(self._width) and not self.rendered_final

    def append(self, text: str) -> None:
        if not text or self._done:
            return
        self._parts.append(text)
        if not self._width:
            return
        if self.markdown and (self._backlog or len(text) > PIECE_CHARS):
            self._backlog.add(text)  # consumed in slices by the worker (``stream_pace.py``)
            self._start_work()
            if self._queue.blocks or self._tail:
                return
            text = self._backlog.take(FIRST_PIECE_CHARS)  # nothing shown yet: a first piece now
        before = self._height()
        self._frame_t0 = time.perf_counter()
        self._consume(text)
        self._relayout(before)

    def prime_width(self, width: int) -> None:
        """Render at ``width`` now, before the first layout: a widget shown for the first
        time is otherwise rendered inside the layout pass, in the same loop callback as the
        repaint of the screen.  A wrong guess only costs a render at the real width."""
        self._ensure(width)

    def finish(self) -> None:
        """Close the stream: render what is still open and show the finished reply."""
        if self._done:
            return
        self._done = True
        if self._width and not self._backlog:  # else the worker finishes it
            self._finish_open()

    @property
    def backlog(self) -> int:
        """Characters given but not consumed yet (tests)."""
        return len(self._backlog)

    def _finish_open(self) -> None:
        """Render what is still open of the finished text, and show the reply."""
        before = self._height()
        if not self.markdown:
            self._wrap_open(final=True)
            self.rendered_final = True
            self._relayout(before)
            return
        self._frame_t0 = time.perf_counter()
        self._close_finished(final=True)
        self._tail = []
        if needs_whole_render(self.text, {b.kind for b in self._queue.blocks}):
            self._whole_render()
            return
        self._maybe_final()
        self._relayout(before)

    def finish_with(self, text: str) -> None:
        """Close the stream showing ``text`` instead of what streamed (a reply cut short)."""
        self._parts = [text] if text else []
        self._done = True
        if self._width:
            self._whole_render()

    def set_palette(self, palette: Palette) -> None:
        if palette != self.palette:
            self.palette = palette
            self.rerender()

    def rerender(self) -> None:
        """Render again at the next layout (new palette, code highlighting ready)."""
        self._width = 0
        self.refresh(layout=True)

    # ----- rendering state ------------------------------------------------------------

    def _reset_render(self) -> None:
        self._gen += 1  # results of renders still running in threads are now stale
        self._styled = {}
        self._fixed = []
        """Stable lines: the header, closed blocks, committed plain lines of the open block."""
        self._tail = []
        """Lines that may still change: the open block's render or its last plain line."""
        self._region = BlockScan()
        self._plain = PlainOpen()
        self._queue = BlockQueue()
        self._plain_open = False
        """The open block is too long to re-render each frame: it streams as plain text."""
        self._frame_t0 = 0.0
        self._budget = SYNC_BUDGET_S
        """Closed blocks render at once while this much of the frame or slice is left."""
        self._backlog = Backlog()
        self._caught_up = False
        """The worker's last slice consumed backlog: the next one renders queued blocks."""
        self._show_due = False
        """The worker shows its last slice's lines after a pause, not right after it."""

    def _header_lines(self) -> list[Strip]:
        return []

    def _render_all(self) -> None:
        self._reset_render()
        self._fixed.extend(self._header_lines())
        if self._done and self.markdown:
            self._fixed.extend(render_markdown(self.text, self._width, self.palette))  # copies
            self.rendered_final = True
            return
        if self._done:
            self._region.open = self.text
            self._wrap_open(final=True)
            self.rendered_final = True
            return
        self._frame_t0 = time.perf_counter()
        self._consume(self.text)

    def _whole_render(self) -> None:
        """One-shot render of the finished text (off the loop when long)."""
        text = self.text
        if len(text) < THREAD_RENDER_CHARS or not self.is_attached:
            before = self._height()
            self._render_all()
            self._relayout(before)
            return
        self._gen += 1
        self.run_worker(
            self._whole_in_thread(text, self._width, self.palette, self._gen),
            group=f"final-{id(self)}",
            exit_on_error=False,
        )

    async def _whole_in_thread(self, text: str, width: int, palette: Palette, gen: int) -> None:
        strips = await in_thread(render_markdown, text, width, palette)
        if gen != self._gen or width != self._width:
            return  # resized or re-rendered meanwhile; the layout pass rendered already
        before = self._height()
        self._reset_render()
        self._fixed = self._header_lines() + list(strips)
        self.rendered_final = True
        self._relayout(before)

    def _consume(self, text: str) -> None:
        self._region.open += text
        if self.markdown:
            self._close_finished(final=False)
            self._show_open()
        else:
            self._wrap_open(final=False)

    # ----- Markdown: closing blocks -------------------------------------------------------

    def _close_finished(self, *, final: bool) -> None:
        """Render every block that the text so far has closed (all of them when final)."""
        source = self._region.open
        closed = self._region.cut_closed(final=final)
        for i, c in enumerate(closed):
            shown = None
            if i == 0 and self._plain_open:
                shown = self._plain.take(source, c.end, self._fixed, self._width, self.line_style)
            self._close_block(c.kind, c.source, shown)
        if closed:
            self._plain_open = False

    def _close_block(self, kind: str, source: str, shown: list[Strip] | None = None) -> None:
        self._drop_open_lines()
        queue = self._queue
        index = len(queue.blocks)
        if not self.is_attached or queue.renders_now(kind, source, self._frame_t0, self._budget):
            lines = render_block(source, self._width, self.palette)
            block = Block(kind, source, lines, True, index)
            self.block_renders += 1
        else:
            placeholder = shown if shown is not None else self._plain_lines(source)
            block = Block(kind, source, tuple(placeholder), False, index)
            queue.pending.append(block)
            self._start_work()
        queue.add(block, self._fixed)

    def _plain_lines(self, source: str) -> list[Strip]:
        return plain_lines(source, self._width, self.line_style)

    def _start_work(self) -> None:
        if self._drain_gen != self._gen:
            self._drain_gen = self._gen
            self.run_worker(run_work(self, self._gen), group=f"md-{id(self)}", exit_on_error=False)

    def _maybe_final(self) -> None:
        """Once finished and nothing renders in a thread, the reply is final."""
        if not self._done or self._queue.pending or self._backlog or not self.markdown:
            return
        head = len(self._header_lines())
        body = trim_blank_edges(self._fixed[head:])
        if len(body) != len(self._fixed) - head:
            self._fixed = self._fixed[:head] + body
            self._styled = {}
        self.rendered_final = True

    # ----- Markdown: the open block -------------------------------------------------------

    def _show_open(self) -> None:
        source = self._region.open
        if not source.strip():
            self._tail = []
            return
        if not self._plain_open and too_long(source, self._region.open_kind):
            self._plain_open = True
            self._tail = []
        if self._plain_open:
            self._wrap_open(final=False)
            return
        lines, slow = render_open(source, self._width, self.palette)
        self.open_renders += 1
        if slow:
            self._plain_open = True  # from the next frame on; this one is rendered already
        tail: list[Strip] = []
        place(self._queue.last_kind, lines, tail)
        self._tail = tail

    # ----- plain text (thinking blocks; an open block too long for Markdown) -------------

    def _drop_open_lines(self) -> None:
        """Remove the plain lines of the open block; its Markdown render replaces them."""
        self._plain.drop(self._fixed, self._styled)
        self._tail = []

    def _wrap_open(self, *, final: bool) -> None:
        self._tail = self._plain.wrap(
            self._region.open,
            self._fixed,
            self._queue.last_kind,
            self._width,
            self.line_style,
            final=final,
        )

    def _relayout(self, before: int) -> None:
        self._shown_at = time.perf_counter()
        if self._layout_due or self._height() != before:
            self._layout_due = False
            self.refresh(layout=True)
        else:
            self.refresh()

    # ----- Textual hooks ----------------------------------------------------------------

    def _ensure(self, width: int) -> None:
        if width != self._width and width > 0:
            self._width = width
            self._render_all()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._ensure(width)
        return self._height()

    def _height(self) -> int:
        return max(len(self._fixed) + len(self._tail), self._min_lines)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def notify_style_update(self) -> None:
        self._base_style = None
        styled = self.__dict__.get("_styled")
        if styled:
            styled.clear()
        super().notify_style_update()

    _styled: dict[int, Strip]
    _fixed: list[Strip]
    _tail: list[Strip]
    _backlog: Backlog

    _base_style: Style | None = None
    _min_lines = 0
    """Lines it keeps even while fewer are rendered (``ReplyBlock.reserve_line``)."""

    def render_lines(self, crop: Region) -> list[Strip]:
        painted()  # deferred work waits a little after a repaint (``stream_pace.py``)
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        self._ensure(width)
        base = self._base_style
        if base is None:  # computing it costs ~0.2 ms; once per style change
            base = self._base_style = self.rich_style
        n = len(self._fixed)
        if y < n:
            cached = self._styled.get(y)
            if cached is not None and cached.cell_length == width:
                return highlighted(cached, y, self)
            strip = self._fixed[y]
        elif y - n < len(self._tail):
            strip = self._tail[y - n]
        else:
            return Strip.blank(width, base)
        if strip.cell_length != width:
            strip = strip.crop_extend(0, width, None)
        strip = with_offsets(strip.apply_style(base), y)  # offsets: the mouse can select
        if y < n:
            self._styled[y] = strip  # stable lines are styled once, not once per frame
        return highlighted(strip, y, self)

    def painted_lines(self) -> list[Strip]:
        return self._fixed + self._tail
