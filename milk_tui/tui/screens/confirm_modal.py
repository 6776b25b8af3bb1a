"""Two tiny modals shared by every screen: a yes/no confirmation and a one-line text prompt.

Destructive actions (``/forget``, deleting a fact in the browser, deleting a session) go
through ``ConfirmModal`` so a stray key never loses data; ``TextPromptModal`` names and
renames sessions.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Button, Input, Static

from milk_tui.model.terminal_text import inert
from milk_tui.tui.screens.milk_modal import FormModal, MilkModal


class ConfirmModal(MilkModal[bool]):
    """Dismisses with True only on an explicit yes (y, or the confirm button).

    Every confirmation guards a destructive action, so its confirm button is the error variant.
    """

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, title: str, body: str = "", *, confirm_label: str = "Yes") -> None:
        super().__init__(title)
        self.body = inert(body)  # a fact's or a session's text
        self.confirm_label = confirm_label

    def compose_body(self) -> ComposeResult:
        if self.body:
            yield Static(self.body, markup=False, classes="body")

    def compose_buttons(self) -> ComposeResult:
        yield Button("No", id="no")
        yield Button(f"{self.confirm_label} (y)", id="yes", variant="error")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class TextPromptModal(FormModal[str]):
    """One line of text; Enter submits, Escape cancels (None).  Empty is allowed only if
    ``allow_empty`` (a new session may be unnamed; a rename may not be blank)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="prompt.cancel")]

    def __init__(self, title: str, value: str = "", *, placeholder: str = "",
                 allow_empty: bool = False) -> None:  # fmt: skip
        super().__init__(title)
        self.value = value
        self.placeholder = placeholder
        self.allow_empty = allow_empty

    def compose_body(self) -> ComposeResult:
        yield Input(self.value, placeholder=self.placeholder, id="text")
        yield Static("", classes="error", id="error")

    def compose_buttons(self) -> ComposeResult:
        yield Button("Cancel", id="cancel")
        yield Button("OK", id="ok", variant="primary")

    def action_submit(self) -> None:
        text = self.query_one("#text", Input).value.strip()
        if not text and not self.allow_empty:
            self.query_one("#error", Static).update("a name is required")
            return
        self.dismiss(text)
