"""A tool permission question from either agent: Yes once, Always (what it grants is on the
button), a wider Always when the engine offers one, or No with an optional reason for the
model.

It cannot be answered by accident: focus starts on the scrollable body, not on a button;
the letter keys (y yes, a always, n no) answer only while no text box has focus — the
reason box takes letters as text (Textual's ``Input.check_consume_key``), and a printable
key that answers nothing moves focus into the reason box and types there, so a reason typed
without first focusing the box ("please no") never presses a button.  When the question
opens while the user is typing a prompt, even y, a and n are text until they press Tab:
the "a" of "and" must not grant anything.  ``r`` or Tab (from
the body) reaches the reason box in one key; Enter in it is No with that reason; Escape is
No.  The wider grant (``grant_all``: every shell command) has no key at all.

The body (``permission_body``) shows the whole call and what each Always stores.
"""

from __future__ import annotations

from typing import NamedTuple

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Button, Input, Static

from milk_tui.model.events import PermissionRequested
from milk_tui.model.terminal_text import inert_copy
from milk_tui.tui.screens.milk_modal import MilkModal
from milk_tui.tui.screens.permission_body import always_label, describe


class PermissionChoice(NamedTuple):
    allow: bool
    always: bool = False
    reason: str = ""
    wide: bool = False
    """With ``always``: the question's wider grant (``grant_all``) was chosen."""


DENY = PermissionChoice(False)


class PermissionBody(VerticalScroll):
    """The call, scrollable with the arrow keys; where focus starts (a neutral place)."""


class PermissionModal(MilkModal[PermissionChoice]):
    DEFAULT_CSS = """
    PermissionModal .milk-modal { width: 100; border: thick $warning; }
    PermissionModal PermissionBody { height: auto; max-height: 24; }
    PermissionModal PermissionBody:focus { background: $boost; }
    PermissionModal Input { margin-top: 1; }
    PermissionModal .perm-keys { color: $text-muted; }
    PermissionModal .buttons { layout: vertical; align-horizontal: left; }
    PermissionModal .buttons Button { margin: 0; width: 1fr; }
    """
    AUTO_FOCUS = "PermissionBody"
    BINDINGS = [
        Binding("y", "letter('yes')", "Yes", id="milk.permission.allow"),
        Binding("a", "letter('always')", "Always", id="milk.permission.always"),
        Binding("n", "letter('no')", "No", id="milk.permission.deny"),
        Binding("r", "letter('reason')", "Reason", id="milk.permission.reason"),
        Binding("escape", "answer('no')", "No", id="milk.permission.cancel"),
    ]

    def __init__(
        self, request: PermissionRequested, cwd: str = "", *, typing: bool = False
    ) -> None:
        request = inert_copy(request)  # tool names, arguments, paths, diffs: the model's text
        super().__init__(f"{request.agent_name} wants to use {request.tool_name}")
        self.request = request
        self.cwd = cwd
        self._to_reason = False
        """A stray key sent focus to the reason box and the move has not landed yet: keys
        arriving in the same burst (a terminal delivers a typed word at once) are text."""
        self._typing = typing
        self.elsewhere: str = ""
        """Set when the question was answered elsewhere (the phone, a timeout) and closed."""
        """The user was typing a prompt when the question opened: their next letter is
        text for the reason box, never an answer (an ``a`` of "and" must not grant
        anything), until they move focus with Tab (Enter, which sent the prompt, does not count)."""

    def compose_body(self) -> ComposeResult:
        with PermissionBody(classes="perm-body"):
            yield Static(describe(self.request, self.cwd), markup=False)
        yield Input(
            placeholder="reason for No, told to the model (r)", id="reason", select_on_focus=False
        )
        yield Static(
            "y yes once · a always · n or Esc no · r reason · ↑↓ scroll", classes="perm-keys"
        )

    def compose_buttons(self) -> ComposeResult:
        r = self.request
        yield Button("Yes, once (y)", id="yes", variant="success", compact=True)
        # Labels as Text: a grant holds the model's words, never markup.
        yield Button(Text(always_label(r)), id="always", variant="primary", compact=True)
        if r.grant_all and not r.always_rules:
            wide = Text(always_label(r, wide=True))
            yield Button(wide, id="wide", variant="warning", compact=True)
        yield Button("No (n)", id="no", variant="error", compact=True)

    def on_key(self, event: events.Key) -> None:
        # Keys reach here before the bindings.  A printable key that answers nothing (keys
        # may be remapped) starts the reason; while focus moves there, and once the box
        # holds text, every key is text (focus can be off the box for a moment in a burst).
        reason = self.query_one("#reason", Input)
        if not event.is_printable or not event.character:
            if event.key in ("tab", "shift+tab"):
                self._typing = False  # moving focus on purpose: the user is looking
            return
        # The box consumes every printable key it is sent, so one reaching here with focus
        # in the box was sent to the body before the move landed: it is text, not lost.
        in_box = self.focused is reason
        started = bool(reason.value)  # a reason begun is never cut short by a letter of it
        text = self._to_reason or self._typing or started or in_box
        if not text and event.key in self.active_bindings:
            return  # y, a, n, r: the binding answers
        event.stop()
        event.prevent_default()
        if not in_box:
            self._to_reason = True
            reason.focus()
        reason.insert_text_at_cursor(event.character)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self._to_reason = False  # focus landed (in the box, or moved on by Tab or a click)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(event.button.id or "no")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_answer("no")

    def action_letter(self, choice: str) -> None:
        if choice == "reason":
            self.query_one("#reason", Input).focus()
        else:
            self.action_answer(choice)

    def action_answer(self, choice: str) -> None:
        if choice == "yes":
            self.dismiss(PermissionChoice(True))
        elif choice == "always":
            self.dismiss(PermissionChoice(True, always=True))
        elif choice == "wide" and self.request.grant_all:
            self.dismiss(PermissionChoice(True, always=True, wide=True))
        else:
            self.dismiss(PermissionChoice(False, reason=self.query_one(Input).value.strip()))
