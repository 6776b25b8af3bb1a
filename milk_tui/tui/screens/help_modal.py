"""Commands and keys, generated from the same tables that drive them."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from milk_tui.tui.commands import help_text
from milk_tui.tui.keymap import APP_BINDINGS, INPUT_BINDINGS
from milk_tui.tui.screens.help_layout import hanging_rows


def keys_text(keymap: dict[str, str]) -> str:
    rows = []
    for b in (*APP_BINDINGS, *INPUT_BINDINGS):
        keys = keymap.get(b.id or "", b.key)
        rows.append(f"{keys:<34} {b.description}")
    return "\n".join(rows)


class HelpModal(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpModal { align: center middle; }
    HelpModal > VerticalScroll { width: 90%; max-width: 110; height: 85%; border: thick $primary; background: $surface; padding: 1 2; }
    """
    BINDINGS = [Binding("escape,q,f1", "close", "Close", id="milk.help.close")]

    def __init__(self, keymap: dict[str, str] | None = None) -> None:
        super().__init__()
        self.keymap = keymap or {}

    def compose(self) -> ComposeResult:
        t = Text()
        t.append("Slash commands\n", style="bold")
        t.append(help_text() + "\n\n")
        t.append("Keys (remap by id in config [keymap])\n", style="bold")
        t.append(keys_text(self.keymap) + "\n\n")
        t.append(
            "A prompt typed while a turn runs is refused (kept in the input); "
            "Ctrl+C cancels the turn, twice quits.",
            style="dim",
        )
        with VerticalScroll():
            yield Static(hanging_rows(t), markup=False)

    def action_close(self) -> None:
        self.dismiss(None)
