"""Browse and edit remembered facts: search, filters, a virtualised table and the edit keys.

Everything goes through the facade's ``Facts``, and every change to the memory — ours or
an agent's — comes back as a bus event that the app hands to ``handle_bus_event``
(``live.py``).  Those events are coalesced: a burst (an agent writing facts, a consolidation
touching thousands) costs one kept count plus the one page on screen.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Static

from milk_tui.facade.errors import StorageError
from milk_tui.facade.facts import FactQuery, Facts
from milk_tui.model.percept import Percept
from milk_tui.model.terminal_text import inert
from milk_tui.tui.facts.edit_modal import FactDraft, FactEditModal
from milk_tui.tui.facts.filter_bar import FilterBar, next_value
from milk_tui.tui.facts.live import LiveFacts
from milk_tui.tui.facts.table import FactTable, age
from milk_tui.tui.facts.window import FactWindow, parse_search
from milk_tui.tui.screens.confirm_modal import ConfirmModal

SEARCH_DEBOUNCE_S = 0.20
"""Typing speed is ~5-8 keys/s; 200 ms runs one FTS query per pause, not one per key."""

T = TypeVar("T")
TABLE_ACTIONS = frozenset({"add", "edit", "delete", "pin", "undo", "jump", "cycle", "search"})
"""Actions of ``FactBrowser.BINDINGS``: commands on the table's rows, never typed text."""


class FactBrowser(LiveFacts):
    """The memory browser; ``compact`` is the side-pane variant (fewer columns, no filter bar)."""

    DEFAULT_CSS = """
    FactBrowser { height: 1fr; layout: vertical; }
    FactBrowser #fact-search { height: 3; }
    FactBrowser.compact #fact-search { height: 1; border: none; padding: 0 1; }
    FactBrowser #fact-status { height: 1; color: $text-muted; padding: 0 1; }
    FactBrowser #fact-status.error { color: $text-error; }
    """
    BINDINGS = [
        Binding("a", "add", "Add", id="facts.add"),
        Binding("e,enter", "edit", "Edit", id="facts.edit"),
        Binding("d,delete", "delete", "Delete", id="facts.delete"),
        Binding("p", "pin", "Pin", id="facts.pin"),
        Binding("u", "undo", "Undo", id="facts.undo"),
        Binding("g", "jump", "Go to turn", id="facts.jump"),
        Binding("s", "cycle('scope')", "Scope", show=False, id="facts.filter_scope"),
        Binding("b", "cycle('producer')", "By", show=False, id="facts.filter_producer"),
        Binding("f", "cycle('consumer')", "For", show=False, id="facts.filter_consumer"),
        Binding("o", "cycle('order')", "Order", show=False, id="facts.order"),
        Binding("slash", "search", "Search", id="facts.search"),
    ]

    class JumpToTurn(Message):
        """Show the turn that produced a fact; the app owns the conversation, so it acts."""

        def __init__(self, session_id: str, turn_index: int, percept_id: int) -> None:
            super().__init__()
            self.session_id = session_id
            self.turn_index = turn_index
            self.percept_id = percept_id

    def __init__(self, facts: Facts, *, session_id: str | None, compact: bool = False,
                 clock: Callable[[], float] = time.time, id: str | None = None,
                 classes: str | None = None) -> None:  # fmt: skip
        super().__init__(id=id, classes=classes)
        self.facts = facts
        self.session_id = session_id
        self.compact = compact
        self.clock = clock
        self.set_class(compact, "compact")
        self.filters = FactQuery()
        """Scope/producer/consumer/order chosen with the chips or keys (search text aside)."""
        self.query_state = self.filters
        self._search_timer: Timer | None = None
        self._refresh_timer: Timer | None = None
        self._generation = 0
        self._follow_id: int | None = None
        self.refreshes = 0
        self._refreshing = False

    # ----- layout ----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        hint = (
            "search"
            if self.compact
            else "search facts… (scope:global by:user for:primary is:pinned)"
        )
        yield Input(placeholder=hint, id="fact-search")
        if not self.compact:
            yield FilterBar(id="fact-filters")
        window = self._safe_load(FactWindow(self.facts, self.query_state, self.session_id))
        yield FactTable(window, compact=self.compact, clock=self.clock, id="fact-table")
        yield Static("", id="fact-status", markup=False)

    def on_mount(self) -> None:
        self._show_status()

    def set_session(self, session_id: str | None) -> None:
        """The app switched sessions: "visible here" now means the new one's facts."""
        self.session_id = session_id
        self.requery(force=True)

    def focus_table(self) -> None:
        self.table.focus()

    def focus_search(self) -> None:
        self.query_one("#fact-search", Input).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The browser's keys are single letters: they act only while the table has focus,
        so that typing in the search box (or anywhere else) never changes a fact."""
        if action in TABLE_ACTIONS:
            return self.screen.focused is self.table  # has_focus lags a focus change
        return True

    def _show_status(self, error: str = "") -> None:
        if not self.compact:
            self.query_one(FilterBar).show(self.query_state)
        status = self.query_one("#fact-status", Static)
        status.set_class(bool(error), "error")
        if error:
            status.update(inert(error))
            return
        if self.window.error:
            status.add_class("error")
            status.update(inert(f"memory: {self.window.error}"))
            return
        n = self.window.total
        text = f"{n:,} fact{'s' if n != 1 else ''}"
        q = self.query_state
        if self.compact and replace(q, order="recent") != FactQuery():
            text += f" · {q.describe()}"  # no chips in the pane: say what is filtered
        elif q.text:
            text += f" matching “{q.text}”"
        status.update(inert(text))  # the search text may be a pasted fact

    # ----- querying --------------------------------------------------------------------

    @on(Input.Changed, "#fact-search")
    def _search_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._search_timer is not None:
            self._search_timer.stop()
        self._search_timer = self.set_timer(SEARCH_DEBOUNCE_S, self.requery)

    @on(Input.Submitted, "#fact-search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._search_timer is not None:
            self._search_timer.stop()
        self.requery()
        self.focus_table()

    def on_fact_table_activated(self, event: FactTable.Activated) -> None:
        event.stop()
        self.action_edit()

    def on_filter_bar_cycle(self, event: FilterBar.Cycle) -> None:
        event.stop()
        self.action_cycle(event.field)

    def action_cycle(self, field: str) -> None:
        """Advance one filter (scope, producer, consumer) or the order to its next value."""
        change: dict[str, Any] = {field: next_value(field, getattr(self.filters, field))}
        self.filters = replace(self.filters, **change)
        self.requery(force=True)

    def set_filters(self, **values: Any) -> None:
        self.filters = replace(self.filters, **values)
        self.requery(force=True)

    def requery(self, force: bool = False) -> None:
        """Rebuild the window for the current search text and filters."""
        raw = self.query_one("#fact-search", Input).value
        query, errors = parse_search(raw, self.filters)
        if query == self.query_state and not errors and not force:
            return  # e.g. the Selects announcing their initial values on mount
        self.query_state = query
        self._generation += 1
        if query.text:  # FTS + bm25 over a large store: off the event loop
            self._load_in_thread(FactWindow(self.facts, query, self.session_id), self._generation)
        else:
            self._install(self._safe_load(FactWindow(self.facts, query, self.session_id)))
        if errors:
            self._show_status("; ".join(errors))

    def _safe_load(self, window: FactWindow) -> FactWindow:
        try:
            return window.load()
        except StorageError as e:
            window.error = str(e)  # shown in the status line; the table stays empty
            return window

    @work(thread=True, exclusive=True, group="fact-search", exit_on_error=False)
    def _load_in_thread(self, window: FactWindow, generation: int) -> None:
        try:
            window.load()
        except StorageError as e:
            self.app.call_from_thread(self.notify, f"memory: {e}", severity="error")
            return
        self.app.call_from_thread(self._install_if_current, window, generation)

    def _install_if_current(self, window: FactWindow, generation: int) -> None:
        if generation == self._generation:
            self._install(window)

    def _install(self, window: FactWindow) -> None:
        self.table.set_window(window)
        self.table.cursor = 0
        self._show_status()

    # ----- actions ---------------------------------------------------------------------

    def _selected(self) -> Percept | None:
        p = self.table.current()
        if p is None:
            self.notify("no fact selected", severity="warning")
        return p

    def _mutate(self, fn: Callable[[], T]) -> tuple[bool, T | None]:
        """Run one facts command; a failure becomes one notification naming the cause."""
        try:
            result = fn()
        except (StorageError, KeyError, ValueError) as e:
            self.notify(f"memory: {e.args[0] if e.args else e}", severity="error")
            return False, None
        self.schedule_refresh()
        return True, result

    def action_search(self) -> None:
        self.focus_search()

    def action_add(self) -> None:
        def done(draft: FactDraft | None) -> None:
            if draft is None:
                return
            _, p = self._mutate(lambda: self.facts.remember(
                draft.content, producer="user", consumer=draft.consumer, scope=draft.scope,
                session_id=self.session_id or "", core=draft.core, weight=draft.weight))  # fmt: skip
            if p is not None:
                self._follow_id = p.id
                if p.created_at != p.updated_at:
                    self.notify(f"a similar fact #{p.id} exists; it was reinforced instead")

        self.app.push_screen(FactEditModal(None, session_id=self.session_id), done)

    def action_edit(self) -> None:
        sel = self._selected()
        if sel is None:
            return
        fresh = self.facts.get(sel.id) or sel

        def done(draft: FactDraft | None) -> None:
            if draft is None:
                return
            self._follow_id = fresh.id
            self._mutate(lambda: self.facts.edit(
                fresh.id, content=draft.content, consumer=draft.consumer, core=draft.core,
                weight=draft.weight, scope=draft.scope))  # fmt: skip

        self.app.push_screen(FactEditModal(fresh, session_id=self.session_id,
                                           origin=self._origin(fresh)), done)  # fmt: skip

    def _origin(self, p: Percept) -> str:
        where = f"turn {p.turn_index} of session {p.session_id[:8]}" if p.turn_index else (
            f"session {p.session_id[:8]}" if p.session_id else "no session")  # fmt: skip
        return (f"by {p.producer} · {where} · created {age(self.clock() - p.created_at)} ago"
                f" · updated {age(self.clock() - p.updated_at)} ago")  # fmt: skip

    def action_delete(self) -> None:
        sel = self._selected()
        if sel is None:
            return

        def done(yes: bool | None) -> None:
            if yes:
                self._mutate(lambda: self.facts.forget(sel.id))

        self.app.push_screen(ConfirmModal(f"Forget fact #{sel.id}?", sel.content,
                                          confirm_label="Forget"), done)  # fmt: skip

    def action_pin(self) -> None:
        sel = self._selected()
        if sel is not None:
            self._follow_id = sel.id
            _, p = self._mutate(lambda: self.facts.pin(sel.id, not sel.core))
            if p is not None:
                self.notify(f"fact #{p.id} {'pinned' if p.core else 'unpinned'}")

    def action_undo(self) -> None:
        ok, p = self._mutate(lambda: self.facts.undo(None))
        if not ok:
            return
        if p is None:
            self.notify("nothing to undo")
            return
        self._follow_id = p.id
        self.notify(f"undid the last change to fact #{p.id}")

    def action_jump(self) -> None:
        sel = self._selected()
        if sel is None:
            return
        if not sel.session_id or sel.turn_index <= 0:
            self.notify(f"fact #{sel.id} was not written during a turn", severity="warning")
            return
        self.post_message(self.JumpToTurn(sel.session_id, sel.turn_index, sel.id))
