"""The full-screen memory browser (``/memory`` or its key): the browser with every column."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from milk_tui.facade.facts import Facts
from milk_tui.model.events import BusEvent
from milk_tui.tui.facts.browser import FactBrowser


class FactsScreen(Screen[None]):
    """Pushed by the app; it forwards percept bus events here while the screen is shown."""

    DEFAULT_CSS = """
    FactsScreen #facts-title { height: 1; background: $panel; color: $text; padding: 0 1;
                               text-style: bold; }
    """
    BINDINGS = [Binding("escape,q", "close", "Close", id="facts_screen.close")]

    def __init__(self, facts: Facts, *, session_id: str | None, title: str = "Remembered facts",
                 clock: Callable[[], float] | None = None, search: str = "") -> None:  # fmt: skip
        super().__init__()
        self.search = search
        """Typed in the search box at once (``/memory PATTERN``)."""
        self.facts = facts
        self.session_id = session_id
        self.title_text = title
        self.clock = clock

    def compose(self) -> ComposeResult:
        yield Static(self.title_text, id="facts-title", markup=False)
        yield FactBrowser(self.facts, session_id=self.session_id, id="facts-browser",
                          clock=self.clock or time.time)  # fmt: skip
        yield Footer()

    def on_mount(self) -> None:
        if self.search:
            self.query_one("#fact-search", Input).value = self.search
            self.browser.requery()
        self.browser.focus_table()

    @property
    def browser(self) -> FactBrowser:
        return self.query_one(FactBrowser)

    def handle_bus_event(self, event: BusEvent) -> None:
        self.browser.handle_bus_event(event)

    def on_fact_browser_jump_to_turn(self, event: FactBrowser.JumpToTurn) -> None:
        # The message keeps bubbling to the app, which shows the turn in the conversation;
        # this screen steps aside so that the turn is visible.
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
