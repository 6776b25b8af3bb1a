"""Side pane of remembered facts: the fact browser in its compact form."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical

from milk_tui.model import events as ev
from milk_tui.tui.facts.browser import FactBrowser


class FactsPane(Vertical):
    DEFAULT_CSS = """
    FactsPane { height: 1fr; min-height: 6; border: round $foreground 25%; border-subtitle-color: $text-muted; border-title-color: $accent; padding: 0 1; }
    """

    def __init__(
        self,
        memory: Any,
        session_id: str,
        *,
        clock: Callable[[], float] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.border_title = "Remembered facts"
        self.border_subtitle = "F6: edit"
        self.browser = FactBrowser(
            memory, session_id=session_id, compact=True, clock=clock or time.time
        )

    def compose(self) -> ComposeResult:
        yield self.browser

    def set_session(self, session_id: str) -> None:
        self.browser.set_session(session_id)

    def handle_bus_event(self, e: ev.BusEvent) -> None:
        self.browser.handle_bus_event(e)
