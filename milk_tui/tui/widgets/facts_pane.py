"""Side pane of remembered facts: the fact browser (compact) when available, else a short
list of the most recent facts."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static

from ...core import events as ev

RECENT = 12


def fact_browser_class() -> type[Widget] | None:
    try:
        from ..facts.browser import FactBrowser
    except ImportError:
        return None
    return FactBrowser


class FactsPane(Vertical):
    DEFAULT_CSS = """
    FactsPane { height: 1fr; min-height: 6; border: round $foreground 25%; border-subtitle-color: $text-muted; border-title-color: $accent; padding: 0 1; }
    FactsPane > #facts-list { height: auto; }
    """

    def __init__(self, memory: Any | None, session_id: str, *, clock: Any = None,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Remembered facts"
        self.border_subtitle = "F6: edit"
        self.memory = memory
        self.session_id = session_id
        cls = fact_browser_class() if memory is not None else None
        self.browser: Widget | None = None
        if cls is not None:
            try:
                extra = {"clock": clock} if clock is not None else {}
                self.browser = cls(memory, session_id=session_id, compact=True, **extra)  # type: ignore[call-arg]
            except Exception:  # noqa: BLE001 — a broken browser must not take the app down
                self.browser = None
        self.list = Static("", id="facts-list", markup=False)

    def compose(self) -> ComposeResult:
        yield self.browser if self.browser is not None else self.list

    def on_mount(self) -> None:
        if self.browser is None:
            self._refresh_list()

    def set_session(self, session_id: str) -> None:
        self.session_id = session_id
        if self.browser is not None and hasattr(self.browser, "set_session"):
            self.browser.set_session(session_id)  # type: ignore[attr-defined]
        elif self.browser is None:
            self._refresh_list()

    def handle_bus_event(self, e: ev.BusEvent) -> None:
        if not e.type.startswith("percept_"):  # type: ignore[attr-defined]
            return
        if self.browser is not None and hasattr(self.browser, "handle_bus_event"):
            self.browser.handle_bus_event(e)  # type: ignore[attr-defined]
        elif self.browser is None:
            self._refresh_list()

    def _refresh_list(self) -> None:
        t = Text()
        if self.memory is None:
            t.append("memory is not available in this build", style="dim italic")
        else:
            try:
                facts = self.memory.list(limit=RECENT)
            except Exception as e:  # noqa: BLE001 — show the cause, keep the pane
                t.append(f"facts unavailable: {e}", style="red")
                facts = []
            for p in facts:
                mark = "★ " if getattr(p, "core", False) else "• "
                t.append(mark, style="bold")
                t.append(f"#{p.id} ", style="dim")
                t.append(p.content[:120] + "\n")
            if not facts and self.memory is not None:
                t.append("nothing remembered yet — /learn <fact>", style="dim italic")
        self.list.update(t)
