"""Two tiny modals shared by every screen: a yes/no confirmation and a one-line text prompt.

Destructive actions (``/forget``, deleting a fact in the browser, deleting a session) go
through ``ConfirmModal`` so a stray key never loses data; ``TextPromptModal`` names and
renames sessions.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

MODAL_CSS = """
.milk-modal { width: 72; max-width: 95%; height: auto; max-height: 90%;
              border: round $primary; background: $surface; padding: 1 2; }
.milk-modal .title { text-style: bold; margin-bottom: 1; }
.milk-modal .buttons { height: auto; align-horizontal: right; margin-top: 1; }
.milk-modal .buttons Button { margin-left: 1; }
.milk-modal .error { color: $text-error; height: auto; }
"""


class ConfirmModal(ModalScreen[bool]):
    """Dismisses with True only on an explicit yes (y, or the confirm button)."""

    DEFAULT_CSS = "ConfirmModal { align: center middle; }\n" + MODAL_CSS
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, title: str, body: str = "", *, confirm_label: str = "Yes",
                 danger: bool = True) -> None:  # fmt: skip
        super().__init__()
        self.title_text = title
        self.body = body
        self.confirm_label = confirm_label
        self.danger = danger

    def compose(self) -> ComposeResult:
        with Vertical(classes="milk-modal"):
            yield Label(self.title_text, classes="title")
            if self.body:
                yield Static(self.body, markup=False, classes="body")
            with Horizontal(classes="buttons"):
                yield Button("No", id="no")
                yield Button(f"{self.confirm_label} (y)", id="yes",
                             variant="error" if self.danger else "primary")  # fmt: skip

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class TextPromptModal(ModalScreen[str | None]):
    """One line of text; Enter submits, Escape cancels (None).  Empty is allowed only if
    ``allow_empty`` (a new session may be unnamed; a rename may not be blank)."""

    DEFAULT_CSS = "TextPromptModal { align: center middle; }\n" + MODAL_CSS
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="prompt.cancel")]

    def __init__(self, title: str, value: str = "", *, placeholder: str = "",
                 allow_empty: bool = False) -> None:  # fmt: skip
        super().__init__()
        self.title_text = title
        self.value = value
        self.placeholder = placeholder
        self.allow_empty = allow_empty

    def compose(self) -> ComposeResult:
        with Vertical(classes="milk-modal"):
            yield Label(self.title_text, classes="title")
            yield Input(self.value, placeholder=self.placeholder, id="text")
            yield Static("", classes="error", id="error")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("OK", id="ok", variant="primary")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "ok":
            self._submit()
        else:
            self.dismiss(None)

    def _submit(self) -> None:
        text = self.query_one("#text", Input).value.strip()
        if not text and not self.allow_empty:
            self.query_one("#error", Static).update("a name is required")
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)
