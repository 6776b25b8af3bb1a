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

GLOSSARY = (
    (
        "routing",
        "the router picks the agent for each prompt; /primary or /escalate pins "
        "one agent until /auto",
    ),
    ("pinned", "every prompt goes to the pinned agent until /auto (shown in the status line)"),
    ("need", "what you are trying to get done, as an agent or /need TEXT stated it"),
    (
        "fresh start",
        "the escalation agent gets a new session with only the need and "
        "recent turns, not its earlier conversation",
    ),
    (
        "downgraded",
        "a hand-off that would have continued the escalation's earlier "
        "session became a fresh start (the need changed, or many turns passed)",
    ),
    ("scope", "a fact is global (every session) or kept to this session"),
    (
        "weight",
        "how much a fact counts when choosing what the agents see, 0.0 to 1.0; "
        "it grows when a fact is stated again",
    ),
)
"""The words the screen uses, each said plainly (help shows them under "Words")."""


def glossary_text() -> str:
    width = max(len(word) for word, _ in GLOSSARY)
    return "\n".join(f"{word:<{width}}  {meaning}" for word, meaning in GLOSSARY)


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
        t.append("Words\n", style="bold")
        t.append(glossary_text() + "\n\n")
        t.append(
            "A prompt typed while a turn runs is refused (kept in the input); "
            "Ctrl+C cancels the turn, and between turns copies the text selected with the "
            "mouse (or a reply Alt+C marked), else clears the input, twice quits.  Alt+C "
            "copies the last reply, Alt+K its last code block; again, the one before.  "
            "Tab completes commands, their words, names and @path; again, the next match.  "
            "An unknown /word is never sent; start with // or a space to send a prompt "
            "that begins with /.",
            style="dim",
        )
        with VerticalScroll():
            yield Static(hanging_rows(t), markup=False)

    def action_close(self) -> None:
        self.dismiss(None)
