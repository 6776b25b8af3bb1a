"""A Line-API widget that shows text as it streams, at a cost independent of its length.

Markdown replies are cut into their top-level blocks (``md_blocks.py``).  Per coalesced
frame: append the new text; if new complete lines may have ended a block, parse the open
region and render each block that closed, exactly once; then re-render only the open
block, as Markdown, so the reply is formatted while it arrives.  The finished reply is the
join of its blocks' renders — the same lines as a one-shot render — so finishing renders
only what was still open.

No frame holds the event loop long: closed blocks are rendered synchronously until
``SYNC_BUDGET_S`` is spent; the rest are queued and rendered in later slices of the same
size (a block too big for one slice in a worker thread), shown as plain text meanwhile;
an open block too big to re-render within
``OPEN_BUDGET_S`` streams as incrementally wrapped plain text until it closes.  Plain
streams (thinking blocks) are only ever wrapped incrementally.  Painting touches only the
visible lines.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from rich.style import Style
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from milk_tui.tui.widgets.md_blocks import (
    BLANK,
    FENCE_KINDS,
    block_spans,
    brings_blank,
    is_blank,
    needs_whole_render,
    render_block,
    separator,
    trim_blank_edges,
)
from milk_tui.tui.widgets.md_render import (
    Palette,
    markdown_lines,
    plain_strip,
    render_markdown,
    wrap_offsets,
)
from milk_tui.tui.widgets.render_thread import in_thread

THREAD_RENDER_CHARS = 16_000
"""Above this size a one-shot render (a cut reply, one with link references) runs in a
thread: a 20,000-chunk reply takes ~0.1–0.3 s to render, longer than the key-wait budget."""
SYNC_BUDGET_S = 0.008
"""Closed blocks rendered on the event loop per frame, at most: half a 60 Hz frame."""
OPEN_BUDGET_S = 0.006
"""Longest re-render of the open block per frame before it falls back to plain text."""
OPEN_CHARS = {"text": 3_000, "fence": 800}
"""Open blocks longer than this are not even tried as Markdown (Rich renders prose at
~2–3 µs a character and highlighted code at ~13 µs on a 2-core box)."""
OPEN_MIN_CHARS = 300
"""A slow render of an open block shorter than this is a one-off (Pygments loading a
lexer on the first code block), not a reason to stop formatting it."""
SYNC_CHARS = {"text": 2_500, "fence": 500}
"""A closed block longer than this cannot render within one slice: it renders in a worker
thread (a render cannot be split; Rich renders a block in one call)."""
DRAIN_PAUSE_S = 0.002
"""Pause between two slices of queued block renders: long enough for a key's handling (a
few loop iterations) to run in between."""
DRAIN_SHOW_S = 0.25
"""Queued blocks, once rendered, are shown at the next streamed frame, or once this much
rendering (CPU time, so that a loaded machine does not repaint more often) was done with
no frame for as long: each showing costs a layout and a repaint of the conversation
(~10 ms of CPU at 120×40, more for a long reply)."""
LARGE_REGION_CHARS = 16_000
"""Past this size the open region is parsed again only when a blank line arrives."""
_STARTS = frozenset("#>-*+=_`~|<:0123456789 \t")
"""First characters of a line that may start a new top-level block after a paragraph; a
line starting with anything else continues it (CommonMark's paragraph continuation)."""


def _cost_class(kind: str) -> str:
    return "fence" if kind in FENCE_KINDS else "text"


@dataclass(slots=True)
class _Block:
    kind: str
    source: str
    lines: tuple[Strip, ...]
    final: bool
    """False while it waits to be rendered (``lines`` are a plain placeholder)."""
    index: int
    """Its position among the reply's closed blocks."""


class StreamView(Widget):
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

    def append(self, text: str) -> None:
        if not text or self._done:
            return
        self._parts.append(text)
        if not self._width:
            return
        before = len(self._fixed) + len(self._tail)
        self._frame_t0 = time.perf_counter()
        self._consume(text)
        self._relayout(before)

    def finish(self) -> None:
        """Close the stream: render what is still open and show the finished reply."""
        if self._done:
            return
        self._done = True
        if not self._width:
            return
        before = len(self._fixed) + len(self._tail)
        if not self.markdown:
            self._wrap_open(final=True)
            self.rendered_final = True
            self._relayout(before)
            return
        self._frame_t0 = time.perf_counter()
        self._close_finished(final=True)
        self._tail = []
        if needs_whole_render(self.text, {b.kind for b in self._blocks}):
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
        if palette == self.palette:
            return
        self.palette = palette
        self._width = 0  # force a re-render on next layout
        self.refresh(layout=True)

    # ----- rendering state ------------------------------------------------------------

    def _reset_render(self) -> None:
        self._gen += 1  # results of renders still running in threads are now stale
        self._styled = {}
        self._fixed = []
        """Stable lines: the header, closed blocks, committed plain lines of the open block."""
        self._tail = []
        """Lines that may still change: the open block's render or its last plain line."""
        self._open = ""
        """Source of the open region (Markdown: from the first line of the open block)."""
        self._open_commit = 0
        self._open_lines = 0
        """Plain lines of the open block in ``_fixed`` (removed when it closes)."""
        self._open_starts = []
        """Where in ``_open`` each committed plain line starts (the gap line has none)."""
        self._blocks = []
        self._block_at = []
        """Where each closed block's lines (separator included) start in ``_fixed``."""
        self._pending = []
        self._scan = 0
        """Offset in ``_open`` up to which complete lines were looked at."""
        self._open_kind = "paragraph_open"
        self._plain_open = False
        """The open block is too long to re-render each frame: it streams as plain text."""
        self._frame_t0 = 0.0

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
            self._open = self.text
            self._wrap_open(final=True)
            self.rendered_final = True
            return
        self._frame_t0 = time.perf_counter()
        self._consume(self.text)

    def _whole_render(self) -> None:
        """One-shot render of the finished text (off the loop when long)."""
        text = self.text
        if len(text) < THREAD_RENDER_CHARS or not self.is_attached:
            before = len(self._fixed) + len(self._tail)
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
        before = len(self._fixed) + len(self._tail)
        self._reset_render()
        self._fixed = self._header_lines() + list(strips)
        self.rendered_final = True
        self._relayout(before)

    def _consume(self, text: str) -> None:
        self._open += text
        if self.markdown:
            self._close_finished(final=False)
            self._show_open()
        else:
            self._wrap_open(final=False)

    # ----- Markdown: closing blocks -------------------------------------------------------

    def _may_close(self, new_lines: str, region_len: int) -> bool:
        """Cheap test: can the complete lines that just arrived have ended a block?"""
        kind = self._open_kind
        lines = new_lines.split("\n")[:-1]
        if kind == "fence":  # an open fence ends only at a closing fence line
            return any(ln.lstrip(" ").startswith(("```", "~~~")) for ln in lines)
        if region_len > LARGE_REGION_CHARS:
            return any(not ln.strip() for ln in lines)
        if kind not in ("paragraph_open", "bullet_list_open", "ordered_list_open"):
            return True  # after a heading, rule, table or quote any line may start a block
        return any(not ln.strip() or ln[0] in _STARTS for ln in lines)

    def _close_finished(self, *, final: bool) -> None:
        """Render every block that the text so far has closed (all of them when final)."""
        open_ = self._open
        if final:
            region = open_
        else:
            last_nl = open_.rfind("\n")
            if last_nl < self._scan:
                return
            new, self._scan = open_[self._scan : last_nl + 1], last_nl + 1
            if not self._may_close(new, last_nl + 1):
                return
            region = open_[: last_nl + 1]
        spans = block_spans(region)
        if not spans:
            return
        closing = spans if final else spans[:-1]
        if not final:
            last = spans[-1]
            self._open_kind = last.kind
            if last.kind == "fence" and self._fence_closed(region, last.start, last.end):
                self._open_kind = "fence_closed"
        if not closing:
            return
        lines = region.splitlines(keepends=True)
        starts = [0]
        for ln in lines:
            starts.append(starts[-1] + len(ln))
        for i, s in enumerate(closing):
            shown = self._take_plain(starts[s.end]) if i == 0 and self._plain_open else None
            self._close_block(s.kind, "".join(lines[s.start : s.end]), shown)
        rest = len(open_) if final else starts[spans[-1].start]
        self._open = open_[rest:]
        self._scan = max(0, self._scan - rest)
        self._plain_open = False

    @staticmethod
    def _fence_closed(region: str, start: int, end: int) -> bool:
        lines = region.splitlines()[start:end]
        if len(lines) < 2:
            return False
        opener, closer = lines[0].strip(), lines[-1].strip()
        return bool(closer) and closer[0] == opener[0] and closer.strip(closer[0]) == ""

    def _take_plain(self, end: int) -> list[Strip]:
        """The plain lines already on screen for ``_open[:end]``: the placeholder of a long
        block that closes while streaming as plain text (wrapping it again costs O(n))."""
        n = len(self._open_starts)
        lines = self._fixed[len(self._fixed) - n :] if n else []
        keep = [line for line, start in zip(lines, self._open_starts, strict=True) if start < end]
        if self._open_commit < end:
            keep.extend(self._plain_lines(self._open[self._open_commit : end]))
        return keep

    def _close_block(self, kind: str, source: str, shown: list[Strip] | None = None) -> None:
        self._drop_open_lines()
        width, palette = self._width, self.palette
        spent = time.perf_counter() - self._frame_t0
        small = len(source) <= SYNC_CHARS[_cost_class(kind)]
        if not self.is_attached or (small and spent < SYNC_BUDGET_S):
            block = _Block(
                kind, source, render_block(source, width, palette), True, len(self._blocks)
            )
            self.block_renders += 1
        else:
            placeholder = shown if shown is not None else self._plain_lines(source)
            block = _Block(kind, source, tuple(placeholder), False, len(self._blocks))
            self._pending.append(block)
            self._start_drain()
        prev = self._blocks[-1].kind if self._blocks else None
        self._blocks.append(block)
        self._block_at.append(len(self._fixed))
        self._place(prev, block.lines, self._fixed)

    @staticmethod
    def _place(prev: str | None, lines: tuple[Strip, ...] | list[Strip], out: list[Strip]) -> None:
        """Append a block's lines after a block of kind ``prev`` as the one-shot render has
        them: the first block without leading blanks, later ones with Rich's separator."""
        if prev is None:
            start = 0
            while start < len(lines) and is_blank(lines[start]):
                start += 1
            out.extend(lines[start:])
            return
        if separator(prev, lines):
            out.append(BLANK)
        out.extend(lines)

    def _plain_lines(self, source: str) -> list[Strip]:
        text = source.rstrip("\n")
        return [
            plain_strip(text[a:b].rstrip(), self.line_style)
            for a, b in wrap_offsets(text, self._width)
        ]

    def _start_drain(self) -> None:
        if self._drain_gen != self._gen:
            self._drain_gen = self._gen
            self.run_worker(self._drain(self._gen), group=f"md-{id(self)}", exit_on_error=False)

    async def _drain(self, gen: int) -> None:
        """Render the queued blocks in order: small ones on the loop in slices of at most
        ``SYNC_BUDGET_S`` with a short pause between (keys are handled in the pauses), a
        block too long for one slice in a worker thread; swap each batch in."""
        work = 0.0
        try:
            while self._pending and gen == self._gen:
                width, palette = self._width, self.palette
                done: list[_Block] = []
                head = self._pending[0]
                t0 = time.thread_time()
                if not self._small(head):
                    lines = await in_thread(render_block, head.source, width, palette)
                    if gen != self._gen:
                        return
                    head.lines = lines
                    done.append(head)
                else:
                    start = time.perf_counter()
                    for block in self._pending:
                        if not self._small(block) or time.perf_counter() - start > SYNC_BUDGET_S:
                            break
                        block.lines = render_block(block.source, width, palette)
                        done.append(block)
                for block in done:
                    block.final = True
                self.block_renders += len(done)
                del self._pending[: len(done)]
                self._swap_in(done)  # a list splice; the repaint it needs is what costs
                self._layout_due = True
                self._maybe_final()
                work += time.thread_time() - t0
                quiet = time.perf_counter() - self._shown_at  # streamed frames repaint too
                if self.rendered_final or (work >= DRAIN_SHOW_S and quiet >= DRAIN_SHOW_S):
                    self._relayout(-1)
                    work = 0.0
                await asyncio.sleep(DRAIN_PAUSE_S)
        finally:
            if self._drain_gen == gen:
                self._drain_gen = -1

    @staticmethod
    def _small(block: _Block) -> bool:
        return len(block.source) <= SYNC_CHARS[_cost_class(block.kind)]

    def _swap_in(self, rendered: list[_Block]) -> None:
        """Replace the placeholders of freshly rendered blocks with their lines."""
        at, fixed = self._block_at, self._fixed
        low = len(fixed)
        for block in rendered:
            i = block.index
            start = at[i]
            end = at[i + 1] if i + 1 < len(at) else len(fixed) - self._open_lines
            placed: list[Strip] = []
            self._place(self._blocks[i - 1].kind if i else None, block.lines, placed)
            fixed[start:end] = placed
            delta = len(placed) - (end - start)
            if delta:
                for j in range(i + 1, len(at)):
                    at[j] += delta
            low = min(low, start)
        for y in [y for y in self._styled if y >= low]:
            del self._styled[y]

    def _maybe_final(self) -> None:
        """Once finished and nothing renders in a thread, the reply is final."""
        if not self._done or self._pending or not self.markdown:
            return
        head = len(self._header_lines())
        body = trim_blank_edges(self._fixed[head:])
        if len(body) != len(self._fixed) - head:
            self._fixed = self._fixed[:head] + body
            self._styled = {}
        self.rendered_final = True

    # ----- Markdown: the open block -------------------------------------------------------

    def _show_open(self) -> None:
        source = self._open
        if not source.strip():
            self._tail = []
            return
        if not self._plain_open and len(source) > OPEN_CHARS[_cost_class(self._open_kind)]:
            self._plain_open = True
            self._tail = []
        if self._plain_open:
            self._wrap_open(final=False)
            return
        t0 = time.perf_counter()
        lines = markdown_lines(source, self._width, self.palette)
        while lines and is_blank(lines[-1]):
            lines.pop()
        self.open_renders += 1
        if time.perf_counter() - t0 > OPEN_BUDGET_S and len(source) > OPEN_MIN_CHARS:
            self._plain_open = True  # from the next frame on; this one is rendered already
        tail: list[Strip] = []
        self._place(self._blocks[-1].kind if self._blocks else None, lines, tail)
        self._tail = tail

    # ----- plain text (thinking blocks; an open block too long for Markdown) -------------

    def _drop_open_lines(self) -> None:
        """Remove the plain lines of the open block; its Markdown render replaces them."""
        n = self._open_lines
        if n:
            keep = len(self._fixed) - n
            del self._fixed[keep:]
            for y in [y for y in self._styled if y >= keep]:
                del self._styled[y]
        self._open_lines = 0
        self._open_commit = 0
        self._open_starts = []
        self._tail = []

    def _wrap_open(self, *, final: bool) -> None:
        rest = self._open[self._open_commit :]
        if not rest:
            self._tail = []
            return
        if self._blocks and not self._open_lines and rest.strip():
            if brings_blank(self._blocks[-1].kind):
                self._fixed.append(BLANK)  # the gap before the open block
                self._open_lines = 1
        spans = wrap_offsets(rest, self._width)
        keep = spans if final else spans[:-1]
        style = self.line_style
        fixed = self._fixed
        commit = self._open_commit
        for a, b in keep:
            fixed.append(plain_strip(rest[a:b].rstrip(), style))
            self._open_starts.append(commit + a)
        self._open_lines += len(keep)
        if final:
            self._tail = []
            self._open_commit = len(self._open)
            return
        a, b = spans[-1]
        self._open_commit += a
        self._tail = [plain_strip(rest[a:b].rstrip(), style)]

    def _relayout(self, before: int) -> None:
        self._shown_at = time.perf_counter()
        if self._layout_due or len(self._fixed) + len(self._tail) != before:
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
        return len(self._fixed) + len(self._tail)

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
    _open_starts: list[int]
    _blocks: list[_Block]
    _block_at: list[int]
    _pending: list[_Block]

    _base_style: Style | None = None

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        self._ensure(width)
        base = self._base_style
        if base is None:
            base = self._base_style = (
                self.rich_style
            )  # computing it costs ~0.2 ms; once per style change
        n = len(self._fixed)
        if y < n:
            cached = self._styled.get(y)
            if cached is not None and cached.cell_length == width:
                return cached
            strip = self._fixed[y]
        elif y - n < len(self._tail):
            strip = self._tail[y - n]
        else:
            return Strip.blank(width, base)
        if strip.cell_length != width:
            strip = strip.crop_extend(0, width, None)
        strip = strip.apply_style(base)
        if y < n:
            self._styled[y] = strip  # stable lines are styled once, not once per frame
        return strip
