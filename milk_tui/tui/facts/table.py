"""A Line-API table that paints only the rows on screen, pulling them from a ``FactWindow``.

A DataTable keeps every row as data and measures them all; with 100,000 facts that alone
takes seconds.  Here the virtual height is the row count and ``render_line`` asks the
window for the one row at that position, so paint cost is O(screen height) whatever the
store size.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from milk_tui.facade.errors import StorageError
from milk_tui.model.percept import Percept
from milk_tui.model.terminal_text import inert
from milk_tui.tui.facts.window import PAGE_SIZE, FactWindow

RECENT_S = 60.0
"""Facts updated less than this long ago are highlighted (what an agent just wrote)."""
LOW_WEIGHT = 0.4
"""At or below the system producer's initial weight a fact is close to being pruned: dimmed."""


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    width: int
    """0 = takes the remaining width."""


FULL_COLUMNS = (
    Column("pin", "★", 1), Column("scope", "scope", 7), Column("weight", "weight", 6),
    Column("producer", "producer", 10), Column("consumer", "consumer", 10),
    Column("content", "content", 0), Column("updated", "updated", 7),
)  # fmt: skip
SCOPE_LEGEND = "S session · G global"
"""The one-letter scope cells of the narrow and compact tables, said in their header (help's
glossary says what scope and weight mean)."""
NARROW_COLUMNS = (
    Column("pin", "★", 1), Column("scope", "", 1), Column("weight", "w", 3),
    Column("producer", "by", 10), Column("content", f"content (for) · {SCOPE_LEGEND}", 0),
)  # fmt: skip
"""Under NARROW_BELOW columns: scope as G/S, the consumer as a [P]/[E] badge, no age."""
NARROW_BELOW = 100
COMPACT_COLUMNS = (Column("pin", "★", 1), Column("scope", "", 1), Column("weight", "w", 3),
                   Column("content", SCOPE_LEGEND, 0))  # fmt: skip
MIN_CONTENT = 12


def age(seconds: float) -> str:
    s = max(0, int(seconds))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if s >= size:
            return f"{s // size}{unit}"
    return f"{s}s"


def columns_for(width: int, compact: bool) -> tuple[Column, ...]:
    if compact:
        return COMPACT_COLUMNS
    return NARROW_COLUMNS if width < NARROW_BELOW else FULL_COLUMNS


def cell(p: Percept, key: str, compact: bool, now: float) -> str:
    if key == "pin":
        return "★" if p.core else ""
    if key == "scope":
        return p.scope[0].upper() if compact else p.scope
    if key == "weight":
        w = f"{p.weight:.2f}"
        if compact:  # three cells: ".72", "1.0"
            return w[1:] if w.startswith("0") else "1.0"
        return w
    if key == "content":
        text = " ".join(p.content.split())
        if compact and p.consumer != "all":
            return f"[{p.consumer[0].upper()}] {text}"
        return text
    if key == "updated":
        return age(now - p.updated_at)
    return str(getattr(p, key))


def fit(text: str, width: int) -> str:
    """``text`` padded or cut to ``width`` cells, inert: every cell the table paints goes
    through here as a raw Segment (no Rich text in between), and facts are untrusted."""
    text = inert(text)
    if cell_len(text) <= width:
        return set_cell_size(text, width)
    return set_cell_size(text, max(0, width - 1)) + "…" if width else ""


class FactTable(ScrollView, can_focus=True):
    """Rows of a ``FactWindow``; the cursor is a row position, the window owns the data."""

    COMPONENT_CLASSES = {
        "fact-table--header", "fact-table--cursor", "fact-table--pinned",
        "fact-table--recent", "fact-table--low", "fact-table--empty",
    }  # fmt: skip
    DEFAULT_CSS = """
    FactTable { height: 1fr; overflow-x: hidden; scrollbar-size-vertical: 1; }
    FactTable > .fact-table--header { text-style: bold; color: $text-accent; background: $panel; }
    FactTable > .fact-table--cursor { background: $block-cursor-blurred-background; }
    FactTable:focus > .fact-table--cursor { background: $block-cursor-background;
                                            color: $block-cursor-foreground; }
    FactTable > .fact-table--pinned { text-style: bold; }
    FactTable > .fact-table--recent { color: $warning; }
    FactTable > .fact-table--low { color: $text-muted; }
    FactTable > .fact-table--empty { color: $text-muted; text-style: italic; }
    """
    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False, id="facts.cursor_up"),
        Binding("down,j", "cursor(1)", "Down", show=False, id="facts.cursor_down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="facts.page_up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="facts.page_down"),
        Binding("home", "jump(0)", "First", show=False, id="facts.first"),
        Binding("end", "jump(-1)", "Last", show=False, id="facts.last"),
    ]

    cursor = reactive(0, always_update=True, repaint=False)

    class Highlighted(Message):
        """The cursor moved onto another row (or the rows under it changed)."""

        def __init__(self, table: FactTable, percept: Percept | None) -> None:
            super().__init__()
            self.table = table
            self.percept = percept

    def __init__(self, window: FactWindow, *, compact: bool = False,
                 clock: Callable[[], float] = time.time, empty_text: str = "no remembered facts",
                 id: str | None = None) -> None:  # fmt: skip
        super().__init__(id=id)
        self.window = window
        self.compact = compact
        self.clock = clock
        self.empty_text = empty_text
        self.columns: tuple[Column, ...] = COMPACT_COLUMNS if compact else FULL_COLUMNS
        """Chosen per width on resize (``columns_for``)."""
        self._asked: list[tuple[FactWindow, int]] = []
        """(window, page) the worker is to read (``_fetch_later``), guarded by ``_asked_lock``."""
        self._asked_lock = threading.Lock()
        self._fetching = False
        window.defer = self._fetch_later

    # ----- data ------------------------------------------------------------------------

    def set_window(self, window: FactWindow, keep_id: int | None = None) -> None:
        """Show another window (new query or refreshed counts) without losing the place."""
        self.window = window
        window.defer = self._fetch_later
        self._sync_size()
        target = window.cached_index(keep_id) if keep_id is not None else None
        self.cursor = target if target is not None else self.cursor
        self.refresh()

    def current(self) -> Percept | None:
        return self.window.row(self.cursor)

    def _fetch_later(self, page: int) -> None:
        """A page only a walk by position reaches (a jump deep into a large store): read in
        a worker thread so no frame waits for it; its rows paint as "…" meanwhile.  One
        worker reads every page asked for meanwhile, a page next to one it just read from
        that page's key (a screen spanning two pages walks once)."""
        with self._asked_lock:
            self._asked.append((self.window, page))
            if self._fetching:
                return
            self._fetching = True
        self.run_worker(self._fetch_asked, thread=True, group="fact-page", exit_on_error=False)

    def _fetch_asked(self) -> None:
        read: dict[int, list[Percept]] = {}
        last: FactWindow | None = None
        while True:
            with self._asked_lock:
                if not self._asked:
                    self._fetching = False
                    return
                # the newest window's pages only: an older window's would be thrown away
                window = self._asked[-1][0]
                self._asked = [(w, p) for w, p in self._asked if w is window]
                at = min(range(len(self._asked)), key=lambda i: self._asked[i][1])
                page = self._asked.pop(at)[1]
            if window is not last:
                read, last = {}, window
            try:
                rows = None
                if page - 1 in read:
                    rows = window.next_to(read[page - 1])
                elif page + 1 in read:
                    rows = window.next_to(read[page + 1], before=True)
                if rows is None:
                    rows = window.by_position(page)
            except StorageError as e:
                self.app.call_from_thread(self._failed, window, page, str(e))
                continue
            read[page] = rows
            self.app.call_from_thread(self._arrived, window, page, rows)

    def _arrived(self, window: FactWindow, page: int, rows: list[Percept]) -> None:
        if window is not self.window or page not in window.pending:
            return  # another query, or a change since: that page is read again when shown
        window.put(page, rows)
        self.refresh()
        if self.cursor // PAGE_SIZE == page:
            self.post_message(self.Highlighted(self, self.current()))

    def _failed(self, window: FactWindow, page: int, error: str) -> None:
        window.pending.discard(page)
        window.error = error
        self.refresh()

    def _sync_size(self) -> None:
        width = self.scrollable_content_region.width or self.size.width
        self.virtual_size = Size(width, self.window.total + 1)

    def on_resize(self, event: events.Resize) -> None:
        self.columns = columns_for(event.size.width, self.compact)
        self._sync_size()

    # ----- cursor ----------------------------------------------------------------------

    @property
    def rows_visible(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, self.window.total - 1)) if self.window.total else 0

    def watch_cursor(self, old: int, new: int) -> None:
        top = round(self.scroll_y)
        if new < top:
            self.scroll_to(y=new, animate=False, immediate=True)
        elif new >= top + self.rows_visible:
            self.scroll_to(y=new - self.rows_visible + 1, animate=False, immediate=True)
        self.refresh()
        self.post_message(self.Highlighted(self, self.current()))

    def action_cursor(self, delta: int) -> None:
        self.cursor += delta

    def action_page(self, direction: int) -> None:
        self.cursor += direction * self.rows_visible

    def action_jump(self, where: int) -> None:
        self.cursor = where if where >= 0 else self.window.total - 1

    class Activated(Message):
        """A row was double-clicked (the browser opens the editor)."""

    def on_click(self, event: events.Click) -> None:
        if event.y >= 1:
            self.cursor = round(self.scroll_y) + event.y - 1
            if event.chain == 2 and self.current() is not None:
                self.post_message(self.Activated())

    # ----- painting --------------------------------------------------------------------

    def _widths(self, width: int) -> list[int]:
        fixed = sum(c.width + 1 for c in self.columns if c.width)
        flex = max(MIN_CONTENT, width - fixed)
        return [c.width or flex for c in self.columns]

    def _line(self, texts: list[str], widths: list[int], style: Style, width: int) -> Strip:
        line = " ".join(fit(t, w) for t, w in zip(texts, widths, strict=True))
        return Strip([Segment(fit(line, width), style)], width)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        widths = self._widths(width)
        if y == 0:
            style = base + self.get_component_rich_style("fact-table--header")
            return self._line([c.label for c in self.columns], widths, style, width)
        index = round(self.scroll_y) + y - 1
        if self.window.total == 0:
            if y == 1:
                style = base + self.get_component_rich_style("fact-table--empty")
                return Strip([Segment(fit(" " + self.empty_text, width), style)], width)
            return Strip.blank(width, base)
        p = self.window.row(index)
        if p is None:
            if self.window.is_pending(index):
                style = base + self.get_component_rich_style("fact-table--empty")
                return Strip([Segment(fit(" …", width), style)], width)
            if self.window.error and y == 1:
                style = base + self.get_component_rich_style("fact-table--empty")
                return Strip([Segment(fit(f" memory: {self.window.error}", width), style)], width)
            return Strip.blank(width, base)
        style = base
        if p.weight <= LOW_WEIGHT and not p.core:
            style += self.get_component_rich_style("fact-table--low")
        if p.core:
            style += self.get_component_rich_style("fact-table--pinned")
        now = self.clock()
        if now - p.updated_at < RECENT_S:
            style += self.get_component_rich_style("fact-table--recent")
        if index == self.cursor:
            style += self.get_component_rich_style("fact-table--cursor")
        short = self.compact or self.columns is NARROW_COLUMNS
        texts = [cell(p, c.key, short, now) for c in self.columns]
        return self._line(texts, widths, style, width)
