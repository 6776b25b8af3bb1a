"""The box every small milk modal is drawn in: a title, the modal's own body, a row of buttons.

``MilkModal`` owns that layout and its CSS; ``FormModal`` adds what every form shares:
Enter in a field or the submit button submits, Cancel or Escape dismisses with None.
"""

from __future__ import annotations

from typing import TypeVar

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label

from milk_tui.model.terminal_text import inert

ResultT = TypeVar("ResultT")

MODAL_CSS = """
.milk-modal { width: 72; max-width: 95%; height: auto; max-height: 90%;
              border: round $primary; background: $surface; padding: 1 2;
              overflow-y: auto; scrollbar-size-vertical: 1; }
.milk-modal .title { dock: top; width: 1fr; background: $surface; text-style: bold;
                     padding-bottom: 1; }
.milk-modal .buttons { dock: bottom; height: auto; align-horizontal: right;
                       background: $surface; padding-top: 1; }
.milk-modal .buttons Button { margin-left: 1; }
.milk-modal .error { color: $text-error; height: auto; }
"""


class ModalBox(VerticalScroll, can_focus=False):
    """The box scrolls with the wheel or with focus moving through its fields; it never
    takes the focus itself (the form's first field keeps it)."""


class MilkModal(ModalScreen[ResultT]):
    """A titled box centred on the screen; subclasses yield its body and its buttons."""

    DEFAULT_CSS = "MilkModal { align: center middle; }\n" + MODAL_CSS

    def __init__(self, title: str) -> None:
        super().__init__()
        self.title_text = inert(title)

    def compose(self) -> ComposeResult:
        # The box scrolls, its title and buttons docked to its edges: on a short terminal
        # the body scrolls while the title, Cancel and the submit button stay on screen.
        with ModalBox(classes="milk-modal"):
            yield Label(self.title_text, classes="title", markup=False)  # may name a fact or tool
            yield from self.compose_body()
            with Horizontal(classes="buttons"):
                yield from self.compose_buttons()

    def compose_body(self) -> ComposeResult:
        """The widgets between the title and the buttons."""
        raise NotImplementedError

    def compose_buttons(self) -> ComposeResult:
        raise NotImplementedError


class FormModal(MilkModal[ResultT | None]):
    """A form: ``action_submit`` dismisses with the result once the fields are valid.

    Its cancel button has the id ``cancel``; every other button submits.
    """

    def action_submit(self) -> None:
        raise NotImplementedError

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "cancel":
            self.dismiss(None)
        else:
            self.action_submit()

    def action_cancel(self) -> None:
        self.dismiss(None)
