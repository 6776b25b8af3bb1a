"""What shows while the session loads: the first frame does not wait for the core's imports,
the database and the agents (they load in a thread right after it)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static


class StartupScreen(Screen[None]):
    DEFAULT_CSS = """
    StartupScreen { align: center middle; }
    StartupScreen > Static { width: auto; height: auto; }
    """

    def compose(self) -> ComposeResult:
        t = Text("◈ milk", style="bold #E0B040")
        t.append("  loading session…", style="dim")
        yield Static(t, markup=False)
