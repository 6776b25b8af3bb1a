"""Search input history (this session first, then global); Enter puts the choice in the input."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from milk_tui.model.terminal_text import inert

if TYPE_CHECKING:
    from milk_tui.tui.widgets.prompt_input import PromptInput

MAX_SHOWN = 200


class HistorySearch(ModalScreen[str | None]):
    DEFAULT_CSS = """
    HistorySearch { align: center middle; }
    HistorySearch > Vertical { width: 90%; max-width: 110; height: 70%; border: thick $primary; background: $surface; }
    HistorySearch OptionList { height: 1fr; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="milk.history.cancel")]

    def __init__(self, entries: list[str]) -> None:
        super().__init__()
        self.entries = list(dict.fromkeys(entries))  # first occurrence wins, order kept

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Input(placeholder="search history…", id="history-query")
            yield OptionList(id="history-options")

    def on_mount(self) -> None:
        self._fill("")

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def _fill(self, query: str) -> None:
        q = query.lower()
        ol = self.query_one(OptionList)
        ol.clear_options()
        hits = [e for e in self.entries if q in e.lower()][:MAX_SHOWN]
        ol.add_options(
            [
                Option(Text(inert(e.replace("\n", " ⏎ ")[:200])), id=str(i))
                for i, e in enumerate(hits)
            ]
        )
        self._hits = hits
        if hits:
            ol.highlighted = 0

    @on(Input.Submitted)
    def _submit(self) -> None:
        ol = self.query_one(OptionList)
        if ol.highlighted is not None and self._hits:
            self.dismiss(self._hits[ol.highlighted])
        else:
            self.dismiss(None)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self._hits[event.option_index])

    def on_key(self, event: events.Key) -> None:
        if event.key in ("up", "down"):
            ol = self.query_one(OptionList)
            ol.action_cursor_up() if event.key == "up" else ol.action_cursor_down()
            event.stop()

    def action_cancel(self) -> None:
        self.dismiss(None)


def search_history(box: PromptInput) -> None:
    """The prompt box's history (this session's, then every session's, newest first) in
    the picker; the prompt picked replaces the box's text."""
    entries = list(reversed(box.prompt_history)) + list(reversed(box.global_prompt_history))

    def picked(text: str | None) -> None:
        if text:
            box.set_text(text)
        box.focus()

    box.app.push_screen(HistorySearch(entries), picked)
