"""A yes/no question (e.g. before /forget deletes a fact)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static


class ConfirmModal(ModalScreen[bool]):
    DEFAULT_CSS = """
    ConfirmModal { align: center middle; }
    ConfirmModal > Vertical { width: 70%; max-width: 90; height: auto; border: thick $error; background: $surface; padding: 1 2; }
    """
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="milk.confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="milk.confirm.no"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question + "\n\n[y]es / [N]o", markup=False)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
