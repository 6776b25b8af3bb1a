"""One-line header: the app mark, the session name and the folder."""

from __future__ import annotations

import os

from rich.text import Text
from textual.widgets import Static


def short_path(path: str, limit: int = 48) -> str:
    home = os.path.expanduser("~")
    if home != "/" and (path == home or path.startswith(home + os.sep)):
        path = "~" + path[len(home) :]
    return path if len(path) <= limit else "…" + path[-(limit - 1) :]


class AppHeader(Static):
    DEFAULT_CSS = """
    AppHeader { height: 1; background: $panel; padding: 0 1; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)

    def show(self, session_name: str, session_id: str, cwd: str, questions: int) -> None:
        """``questions``: prompts answered (one question and its answer is one, however many
        records the agents wrote for it)."""
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append("◈ milk", style="bold #E0B040")
        t.append("  ")
        t.append(session_name or f"session {session_id[:8]}", style="bold")
        t.append(f"  · {questions} question{'' if questions == 1 else 's'}", style="dim")
        t.append("  · " + short_path(cwd), style="dim")
        self.update(t)
