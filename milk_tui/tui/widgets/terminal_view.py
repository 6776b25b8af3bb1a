"""A small terminal emulator for the direct-shell pane: the child's bytes go into a ``pyte``
screen (https://pyte.readthedocs.io), and only the screen's characters and colours are
drawn.  The child's control sequences (titles, OSC 52 clipboard writes, the alternate
screen, cursor moves) are interpreted or dropped by the emulator and never reach the real
terminal; each cell's character is made inert before it is drawn."""

from __future__ import annotations

from typing import Any

import pyte
from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget

from milk_tui.model.terminal_text import inert

SCROLLBACK_LINES = 2000
"""Lines kept above the screen: a test run's output, not a build log kept for ever."""
REDRAW_S = 1 / 30
"""At most this often the pane is drawn again while output streams."""
_NAMES = {"brown": "yellow", "default": ""}


def _color(name: str) -> Color | None:
    name = _NAMES.get(name, name)
    if not name:
        return None
    if len(name) == 6 and all(c in "0123456789abcdefABCDEF" for c in name):
        name = "#" + name
    elif name.startswith("bright"):
        name = "bright_" + name[6:].removeprefix("_")
    try:
        return Color.parse(name)
    except Exception:  # an unknown name is drawn in the default colour
        return None


class TerminalView(Widget, can_focus=True):
    DEFAULT_CSS = "TerminalView { height: 1fr; }"

    def __init__(self, cols: int = 80, rows: int = 24, id: str | None = None) -> None:
        super().__init__(id=id)
        self.screen_ = pyte.HistoryScreen(cols, rows, history=SCROLLBACK_LINES, ratio=0.5)
        self.screen_.set_mode(pyte.modes.LNM)  # a bare \n also returns the carriage
        self.stream = pyte.ByteStream(self.screen_)
        self._dirty = False
        self._drawn: list[int] | None = None
        """How many rows there are to draw, counted once per redraw (None: stale)."""
        self.scroll_back = 0
        """Lines scrolled up from the bottom (PgUp/PgDn)."""

    def feed(self, data: bytes) -> None:
        self.stream.feed(data)
        self._drawn = None
        if not self._dirty:
            self._dirty = True
            self.set_timer(REDRAW_S, self._redraw)

    def _redraw(self) -> None:
        self._dirty = False
        self.refresh()

    def resize_to(self, cols: int, rows: int) -> None:
        if (cols, rows) != (self.screen_.columns, self.screen_.lines) and cols > 1 and rows > 0:
            self.screen_.resize(rows, cols)
            self._drawn = None
            self.refresh()

    def _row(self, i: int) -> list[Any]:
        """Row ``i`` of scrollback-then-screen, as pyte characters."""
        s = self.screen_
        top = s.history.top
        if i < len(top):
            line = top[i]
            return [line[x] for x in range(s.columns) if x in line]
        row = s.buffer[i - len(top)]
        return [row[x] for x in range(s.columns)]

    def _last(self) -> int:
        """Rows to draw: scrollback, then the screen down to its last written row (a short
        output sits at the top, not above empty screen rows)."""
        s = self.screen_
        used = [y for y in range(s.lines) if any(c.data.strip() for c in s.buffer[y].values())]
        return len(s.history.top) + (used[-1] + 1 if used else 0)

    def text(self) -> str:
        """Everything kept, as plain text (trailing blank lines dropped)."""
        lines = ["".join(c.data for c in self._row(i)).rstrip() for i in range(self._last())]
        while lines and not lines[-1]:
            lines.pop()
        return "\n".join(lines)

    def render_line(self, y: int) -> Strip:
        if self._drawn is None:
            self._drawn = [self._last()]
        last = self._drawn[0]
        i = max(0, last - self.size.height - self.scroll_back) + y
        if i >= last:
            return Strip.blank(self.size.width)
        segs: list[Segment] = []
        for c in self._row(i):
            style = Style(
                color=_color(c.fg),
                bgcolor=_color(c.bg),
                bold=c.bold or None,
                italic=c.italics or None,
                underline=c.underscore or None,
                reverse=c.reverse or None,
            )
            segs.append(Segment(inert(c.data) if c.data != " " else " ", style))
        return Strip(segs).simplify().crop(0, self.size.width)

    def page(self, pages: int) -> None:
        total = len(self.screen_.history.top)
        step = max(self.size.height - 1, 1)
        self.scroll_back = max(0, min(total, self.scroll_back + pages * step))
        self._drawn = None
        self.refresh()
