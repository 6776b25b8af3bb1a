"""A Line-API widget that shows text as it streams, at a cost independent of its length.

Per coalesced frame it does: append the new text, close any Markdown blocks that just
finished (blank line / closing fence) and render only those, then word-wrap only the text
after the last stable visual line.  Painting touches only the visible lines.  ``finish()``
does the one full Markdown render of the whole reply,
off the event loop when the reply is long so keys stay responsive.
"""

from __future__ import annotations

import asyncio

from rich.style import Style
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from milk_tui.tui.widgets.md_render import Palette, plain_strip, render_markdown, wrap_offsets

THREAD_RENDER_CHARS = 16_000
"""Above this size the final Markdown render runs in a thread: a 20,000-chunk reply takes
~0.1–0.3 s to render, longer than the 50 ms key-wait budget."""

_FENCES = ("```", "~~~")


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
        self._reset_render()
        self.rendered_final = False
        """True once the full-text render of a finished reply is on screen (benchmarks)."""

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
        self._consume(text)
        self._relayout(before)

    def finish(self) -> None:
        """Close the stream and swap in the full render (sync for short text)."""
        if self._done:
            return
        self._done = True
        if not self._width:
            return
        text = self.text
        if not self.markdown or len(text) < THREAD_RENDER_CHARS or not self.is_attached:
            before = len(self._fixed) + len(self._tail)
            self._render_all()
            self._relayout(before)
            return
        width, palette = self._width, self.palette
        self.run_worker(
            self._final_in_thread(text, width, palette),
            exclusive=True,
            group=f"final-{id(self)}",
            exit_on_error=False,
        )

    def finish_with(self, text: str) -> None:
        """Close the stream showing ``text`` instead of what streamed (a reply cut short)."""
        self._parts = [text] if text else []
        self._done = False
        self.finish()

    def set_palette(self, palette: Palette) -> None:
        if palette == self.palette:
            return
        self.palette = palette
        self._width = 0  # force a re-render on next layout
        self.refresh(layout=True)

    # ----- rendering state ------------------------------------------------------------

    def _reset_render(self) -> None:
        self._styled = {}
        self._fixed: list[Strip] = []
        """Stable lines: finished blocks and committed lines of the open block."""
        self._tail: list[Strip] = []
        """The one visual line that may still change."""
        self._open = ""
        self._open_commit = 0
        self._scan = 0
        self._in_fence = ""
        self._blocks_rendered = 0
        self._open_lines = 0

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
        self._consume(self.text)

    async def _final_in_thread(self, text: str, width: int, palette: Palette) -> None:
        strips = await asyncio.to_thread(render_markdown, text, width, palette)
        if width != self._width:
            return  # resized meanwhile; the layout pass re-rendered already
        before = len(self._fixed) + len(self._tail)
        self._reset_render()
        self._fixed = self._header_lines() + list(strips)
        self.rendered_final = True
        self._relayout(before)

    def _consume(self, text: str) -> None:
        self._open += text
        if self.markdown:
            self._split_blocks()
        self._wrap_open(final=False)

    def _split_blocks(self) -> None:
        """Close Markdown blocks whose end has streamed in; render each exactly once."""
        open_, pos = self._open, self._scan
        block_start = 0
        while True:
            nl = open_.find("\n", pos)
            if nl < 0:
                break
            line = open_[pos:nl]
            stripped = line.strip()
            if self._in_fence:
                if stripped.startswith(self._in_fence) and stripped.strip("`~") == "":
                    self._close_block(open_[block_start : nl + 1])
                    block_start = nl + 1
                    self._in_fence = ""
            elif not stripped:
                if open_[block_start:pos].strip():
                    self._close_block(open_[block_start:pos])
                block_start = nl + 1
            elif stripped.startswith(_FENCES):
                if open_[block_start:pos].strip():
                    self._close_block(open_[block_start:pos])
                block_start = pos
                self._in_fence = stripped[:3]
            pos = nl + 1
        if block_start:
            self._drop_open_lines()
            self._open = open_[block_start:]
            pos -= block_start
        self._scan = pos

    def _close_block(self, block: str) -> None:
        self._drop_open_lines()
        if self._blocks_rendered:
            self._fixed.append(Strip.blank(0))
        self._fixed.extend(render_markdown(block, self._width, self.palette))
        self._blocks_rendered += 1

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
        self._tail = []

    def _wrap_open(self, *, final: bool) -> None:
        rest = self._open[self._open_commit :]
        if not rest:
            self._tail = []
            return
        if self._blocks_rendered and not self._open_lines and rest.strip():
            self._fixed.append(Strip.blank(0))  # the gap before the open block
            self._open_lines = 1
        spans = wrap_offsets(rest, self._width)
        keep = spans if final else spans[:-1]
        style = self.line_style
        fixed = self._fixed
        for a, b in keep:
            fixed.append(plain_strip(rest[a:b].rstrip(), style))
        self._open_lines += len(keep)
        if final:
            self._tail = []
            self._open_commit = len(self._open)
            return
        a, b = spans[-1]
        self._open_commit += a
        self._tail = [plain_strip(rest[a:b].rstrip(), style)]

    def _relayout(self, before: int) -> None:
        if len(self._fixed) + len(self._tail) != before:
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
