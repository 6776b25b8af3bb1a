"""The fact browser's live updates: every change to the memory — the user's or an agent's —
comes back as a bus event, and those events are coalesced into one refresh.

A refresh reads the kept count and the page under the cursor: from the start or the end by
key, or at its depth from the order's index in the table's worker
(docs/adr/0048-a-jump-walks-the-order-index-alone.md), so no frame waits for more than a
page.  A search's refresh counts and ranks its matches again: that runs in a worker thread
and comes back as a ``FactsRefreshed`` message, the old rows painted meanwhile.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from textual import work
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget

from milk_tui.facade.errors import StorageError
from milk_tui.facade.facts import Facts
from milk_tui.model import events as ev
from milk_tui.tui.facts.table import FactTable
from milk_tui.tui.facts.window import FactWindow

REFRESH_COALESCE_S = 0.15
"""Bus bursts (an agent's facts, a consolidation) inside this window become one refresh."""


class FactsRefreshed(Message):
    """A search's live refresh, read in a worker: its window and where the fact the cursor
    was on now is (None: not on the pages read)."""

    bubble = False

    def __init__(self, window: FactWindow, generation: int, index: int | None) -> None:
        super().__init__()
        self.window = window
        self.generation = generation
        self.index = index


class LiveFacts(Widget):
    """The refresh half of ``FactBrowser`` (which sets these attributes and the methods
    below that raise)."""

    facts: Facts
    session_id: str | None
    _refresh_timer: Timer | None
    _generation: int
    """Bumped by each new query: a refresh read for an older one is dropped."""
    _follow_id: int | None
    """The fact to keep the cursor on after the next refresh (one the user just changed)."""
    refreshes: int
    """Coalesced refreshes so far (tests assert a burst costs one)."""
    _refreshing: bool
    """A search's refresh is being read in a worker (``FactsRefreshed`` ends it)."""

    @property
    def table(self) -> FactTable:
        return self.query_one(FactTable)

    @property
    def window(self) -> FactWindow:
        return self.table.window

    def set_session(self, session_id: str | None) -> None:
        raise NotImplementedError

    def _show_status(self, error: str = "") -> None:
        raise NotImplementedError

    def handle_bus_event(self, event: ev.BusEvent) -> None:
        """Called by the app for every event; cheap and safe to call from any thread."""
        if not self.is_attached:
            return
        match event:
            case ev.PerceptRecorded() | ev.PerceptUpdated() | ev.PerceptDeleted():
                self._on_app_thread(self.schedule_refresh)
            case ev.SessionChanged(session_id=sid) if sid and sid != self.session_id:
                self._on_app_thread(lambda: self.set_session(sid))

    def _on_app_thread(self, fn: Callable[[], object]) -> None:
        if threading.get_ident() != self.app._thread_id:
            self.app.call_from_thread(fn)
        else:
            fn()

    @property
    def refresh_pending(self) -> bool:
        """A coalesced refresh is waiting on its timer (tests wait for it to land)."""
        return self._refresh_timer is not None or self._refreshing

    def schedule_refresh(self) -> None:
        if self._refresh_timer is None:
            self._refresh_timer = self.set_timer(REFRESH_COALESCE_S, self.refresh_now)

    def refresh_now(self) -> None:
        """Recount and repaint, keeping the cursor on the same fact when it only moved a little."""
        self._refresh_timer = None
        self.refreshes += 1
        table, window = self.table, self.window
        current = table.current()
        keep = self._follow_id if self._follow_id is not None else (current.id if current else None)
        self._follow_id = None
        if window.query.text:  # a search's count and pages pass over its matches: a worker
            self._refreshing = True
            again = FactWindow(self.facts, window.query, self.session_id)
            self._refresh_in_thread(again, self._generation, keep, table.cursor)
            return
        try:
            window.error = ""
            window.invalidate()
            index = _reread(window, keep, table.cursor)
        except StorageError as e:
            window.error = str(e)
            table.refresh()
            self._show_status()
            return
        table.set_window(window)
        if index is not None:
            table.cursor = index
        else:
            table.cursor = table.cursor  # clamp to the new total and repaint
        self._show_status()

    @work(thread=True, exclusive=True, group="fact-refresh", exit_on_error=False)
    def _refresh_in_thread(self, window: FactWindow, generation: int, keep: int | None,
                           cursor: int) -> None:  # fmt: skip
        index = None
        try:
            index = _reread(window, keep, cursor)
        except StorageError as e:
            window.error = str(e)
        finally:
            self.post_message(FactsRefreshed(window, generation, index))

    def on_facts_refreshed(self, event: FactsRefreshed) -> None:
        self._refreshing = False
        if event.generation != self._generation:
            return  # the query changed meanwhile: its own load shows it
        table = self.table
        table.set_window(event.window)
        table.cursor = event.index if event.index is not None else table.cursor
        self._show_status()


def _reread(window: FactWindow, keep: int | None, cursor: int) -> int | None:
    """Recount ``window`` and find the fact ``keep`` again: on the page under the cursor,
    then on the first; its new index, or None (raises ``StorageError``)."""
    window.recount()
    if keep is None:
        return None
    window.row(cursor)
    index = window.cached_index(keep)
    if index is None:
        window.row(0)
        index = window.cached_index(keep)
    return index
