"""Add or edit one remembered fact: content, consumer, pinned, weight, scope.

Validation is a plain function (``validate``) so its rules are tested without a screen;
the modal only shows its errors next to the form and refuses to close while any remain.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button, Checkbox, Input, Label, Select, Static, TextArea

from milk_tui.facade.facts import DEFAULT_SCOPE
from milk_tui.model.percept import Percept
from milk_tui.model.terminal_text import inert
from milk_tui.tui.screens.milk_modal import FormModal

MAX_CONTENT_BYTES = 2000
"""Selection caps the whole ``[Remembered facts]`` block at 2,048 bytes, so
a longer fact could never be sent to an agent, so it is refused here."""

CONSUMER_OPTIONS = [("both agents", "all"), ("primary only", "primary"),
                    ("escalation only", "escalation")]  # fmt: skip


@dataclass(frozen=True)
class FactDraft:
    """What the user typed, validated; ``MemoryService.record``/``edit`` take it from here."""

    content: str
    consumer: str
    core: bool
    weight: float | None
    """None on a new fact = the producer's initial weight."""
    scope: str


def validate(content: str, consumer: str, core: bool, weight_text: str, scope: str,
             session_id: str | None) -> tuple[FactDraft | None, list[str]]:  # fmt: skip
    errors: list[str] = []
    text = " ".join(content.split())  # one fact = one bullet line in the prompt block
    if not text:
        errors.append("content: a fact cannot be empty")
    elif len(text.encode()) > MAX_CONTENT_BYTES:
        errors.append(f"content: {len(text.encode())} bytes; at most {MAX_CONTENT_BYTES} "
                      "fit in the remembered-facts block")  # fmt: skip
    if consumer not in {v for _, v in CONSUMER_OPTIONS}:
        errors.append("consumer: choose both agents, primary only or escalation only")
    weight: float | None = None
    if weight_text.strip():
        try:
            weight = float(weight_text)
        except ValueError:
            errors.append(f"weight: '{weight_text.strip()}' is not a number (0.00 – 1.00)")
        else:
            if not 0.0 <= weight <= 1.0:
                errors.append(f"weight: {weight:g} is outside 0.00 – 1.00")
    if core:
        scope = "global"  # pinned facts are global: they apply in every session
    if scope not in ("session", "global"):
        errors.append("scope: choose session or global")
    elif scope == "session" and not session_id:
        errors.append("scope: there is no current session; use global")
    if errors:
        return None, errors
    return FactDraft(text, consumer, core, weight, scope), []


class FactEditModal(FormModal[FactDraft]):
    """``percept=None`` adds a fact; otherwise edits it.  Dismisses with the draft or None."""

    DEFAULT_CSS = """
    FactEditModal .milk-modal { width: 84; }
    FactEditModal .origin { color: $text-muted; margin-bottom: 1; }
    FactEditModal TextArea { height: 5; background: $boost; margin-bottom: 1; }
    FactEditModal .row { height: 1; margin-bottom: 1; }
    FactEditModal .row Label { width: 8; color: $text-muted; }
    FactEditModal .row Select, FactEditModal .row Input { width: 1fr; margin-right: 2; }
    FactEditModal .row Checkbox { width: 1fr; }
    FactEditModal Label.field { color: $text-muted; }
    """
    BINDINGS = [
        Binding("ctrl+s", "submit", "Save", id="fact_edit.save"),
        Binding("escape", "cancel", "Cancel", id="fact_edit.cancel"),
    ]

    def __init__(self, percept: Percept | None = None, *, session_id: str | None = None,
                 origin: str = "") -> None:  # fmt: skip
        super().__init__(f"Edit fact #{percept.id}" if percept else "Remember a new fact")
        self.percept = percept
        self.session_id = session_id
        self.origin = origin

    def compose_body(self) -> ComposeResult:
        p = self.percept
        scope = p.scope if p else DEFAULT_SCOPE
        scopes = [("this session", "session"), ("global", "global")] if self.session_id or (
            p and p.scope == "session") else [("global", "global")]  # fmt: skip
        if self.origin:
            yield Static(inert(self.origin), classes="origin", markup=False)
        yield Label("Content", classes="field")
        yield TextArea(inert(p.content) if p else "", id="content", soft_wrap=True, compact=True,
                       show_line_numbers=False, tab_behavior="focus")  # fmt: skip
        with Horizontal(classes="row"):
            yield Label("For")
            yield Select(CONSUMER_OPTIONS, value=p.consumer if p else "all",
                         allow_blank=False, compact=True, id="consumer")  # fmt: skip
            yield Label("Scope")
            yield Select(scopes, value=scope, allow_blank=False, compact=True, id="scope",
                         disabled=bool(p and p.core))  # fmt: skip
        with Horizontal(classes="row"):
            yield Label("Weight")
            yield Input(f"{p.weight:.2f}" if p else "", placeholder="0.00 – 1.00, empty = default",
                        compact=True, id="weight")  # fmt: skip
            yield Checkbox("Pinned (kept, global)", value=bool(p and p.core), compact=True,
                           id="core")  # fmt: skip
        yield Static("", classes="error", id="errors", markup=False)

    def compose_buttons(self) -> ComposeResult:
        yield Button("Cancel", id="cancel", compact=True)
        yield Button("Save ^s", id="save", variant="primary", compact=True)

    def on_mount(self) -> None:
        self.query_one("#content", TextArea).focus()

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        scope = self.query_one("#scope", Select)
        scope.disabled = event.value
        if event.value:
            scope.value = "global"

    def action_submit(self) -> None:
        text = self.query_one("#content", TextArea).text
        if self.percept is not None and text == inert(self.percept.content):
            text = self.percept.content  # shown inert, unchanged: the stored fact stays as it is
        draft, errors = validate(
            text,
            str(self.query_one("#consumer", Select).value),
            self.query_one("#core", Checkbox).value,
            self.query_one("#weight", Input).value,
            str(self.query_one("#scope", Select).value),
            self.session_id or (self.percept.session_id if self.percept else None),
        )
        self.query_one("#errors", Static).update("\n".join(errors))
        if draft is not None:
            self.dismiss(draft)
