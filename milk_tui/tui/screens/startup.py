"""What shows while the session loads: the first frame does not wait for the core's imports,
the database and the agents (they load in a thread right after it).

Keys typed meanwhile are kept, not lost: the main screen's prompt starts with them, and an
Enter among them sends that prompt as soon as it can."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.events import Key
from textual.screen import Screen
from textual.widgets import Static

TAIL_TURNS = 64
"""A resumed session's turns read and made transcript items before the main screen's first
frame: more than the mounted window (``widgets/conversation.py`` ``WINDOW`` blocks) shows;
the older ones follow after it (``screens/main.py`` ``load_session``)."""


class StartupScreen(Screen[None]):
    DEFAULT_CSS = """
    StartupScreen { align: center middle; }
    StartupScreen > Static { width: auto; height: auto; }
    """

    def compose(self) -> ComposeResult:
        t = Text("◈ milk", style="bold #E0B040")
        t.append("  loading session…", style="dim")
        yield Static(t, markup=False)

    def __init__(self) -> None:
        super().__init__()
        self.typed = ""
        """What was typed before the main screen came up (its prompt starts with it)."""
        self.entered = False
        """Enter was pressed after ``typed``: the main screen sends it."""

    def on_key(self, event: Key) -> None:
        if self.entered:
            return  # what follows an Enter would go to the next prompt: not kept
        # Typed before the app put the terminal in raw mode, Enter arrives as a newline
        # (the tty's cooked mode turns CR into NL): on this screen both mean Enter.
        if event.key in ("enter", "ctrl+j"):
            self.entered = bool(self.typed.strip())
        elif event.key == "backspace":
            self.typed = self.typed[:-1]
        elif event.is_printable and event.character:
            self.typed += event.character
        else:
            return
        event.stop()
