"""A tool permission question from the escalation agent: Y allows, N / Esc denies."""

from __future__ import annotations

import json

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from milk_tui.model.events import PermissionRequested

INPUT_PREVIEW_CHARS = 1500


class PermissionModal(ModalScreen[bool]):
    DEFAULT_CSS = """
    PermissionModal { align: center middle; }
    PermissionModal > Vertical { width: 80%; max-width: 100; height: auto; max-height: 80%;
        border: thick $warning; background: $surface; padding: 1 2; }
    PermissionModal .perm-keys { margin-top: 1; color: $text-muted; }
    """
    BINDINGS = [
        Binding("y,enter", "answer(True)", "Allow", id="milk.permission.allow"),
        Binding("n,escape", "answer(False)", "Deny", id="milk.permission.deny"),
    ]

    def __init__(self, request: PermissionRequested) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        body = json.dumps(self.request.tool_input, indent=2, ensure_ascii=False)
        if len(body) > INPUT_PREVIEW_CHARS:
            body = body[:INPUT_PREVIEW_CHARS] + "\n…"
        t = Text()
        t.append(f"{self.request.agent_name} wants to use ", style="bold")
        t.append(self.request.tool_name, style="bold yellow")
        t.append("\n\n")
        t.append(body, style="dim")
        with Vertical():
            yield Static(t, markup=False)
            yield Static("[Y]es allow · [N]o deny (Esc)", classes="perm-keys", markup=False)

    def action_answer(self, allow: bool) -> None:
        self.dismiss(allow)
