"""What the escalation agent saw: the exact context text of the last hand-off."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from milk_tui.model.terminal_text import inert


class ContextModal(ModalScreen[None]):
    DEFAULT_CSS = """
    ContextModal { align: center middle; }
    ContextModal > Vertical { width: 90%; height: 85%; border: thick $secondary; background: $surface; padding: 0 1; }
    ContextModal .ctx-title { height: 1; color: $secondary; text-style: bold; }
    ContextModal TextArea { height: 1fr; }
    """
    BINDINGS = [Binding("escape,q,f4", "close", "Close", id="milk.context.close")]

    def __init__(self, context_text: str, agent_name: str) -> None:
        super().__init__()
        self.context_text = inert(context_text)  # facts and history: untrusted text
        self.agent_name = inert(agent_name)

    def compose(self) -> ComposeResult:
        text = self.context_text or "(no hand-off yet in this session)"
        with Vertical():
            yield Static(
                f"What {self.agent_name} saw on the last hand-off "
                f"({len(self.context_text)} chars) — Esc closes",
                classes="ctx-title",
                markup=False,
            )
            yield TextArea(text, read_only=True, soft_wrap=True, id="context-text")

    def action_close(self) -> None:
        self.dismiss(None)
