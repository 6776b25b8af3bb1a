"""The dev workflow's two questions to the user: the designer's questions before it plans,
and the offer to continue a sprint that used its passes.

Neither can be answered by stray typing (the user may be typing a prompt when one opens):
the questions modal starts in its answer box, which takes every printable key and Enter as
text, and answers only on Ctrl+S or its button; the extend offer starts on its neutral body,
swallows printable keys and has no letter keys at all, so a burst of text presses nothing.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Button, Static, TextArea

from milk_tui.model.terminal_text import inert
from milk_tui.tui.screens.milk_modal import MilkModal


class QuestionsBody(VerticalScroll):
    """The designer's questions, scrollable with the arrow keys."""


class WorkflowQuestionsModal(MilkModal[str]):
    """Dismisses with the answers; "" (Esc, Skip) lets the designer plan with its defaults."""

    DEFAULT_CSS = """
    WorkflowQuestionsModal .milk-modal { width: 90; border: thick $accent; }
    WorkflowQuestionsModal QuestionsBody { height: auto; max-height: 12; }
    WorkflowQuestionsModal TextArea { width: 1fr; height: 6; margin-top: 1; }
    WorkflowQuestionsModal .wf-keys { color: $text-muted; }
    """
    BINDINGS = [
        Binding("ctrl+s", "answer", "Answer", id="milk.workflow.answer"),
        Binding("escape", "skip", "Skip", id="milk.workflow.skip"),
    ]

    def __init__(self, questions: str) -> None:
        super().__init__("The designer asks before planning")
        self.questions = inert(questions)  # the model's text

    def compose_body(self) -> ComposeResult:
        with QuestionsBody():
            yield Static(self.questions, markup=False)
        yield TextArea("", id="answers", soft_wrap=True, show_line_numbers=False)
        yield Static(
            "type your answers · ctrl+s answer · Esc skip (the designer plans with defaults)",
            classes="wf-keys",
            markup=False,
        )

    def compose_buttons(self) -> ComposeResult:
        yield Button("Skip", id="skip")
        yield Button("Answer (ctrl+s)", id="answer", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#answers", TextArea).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "answer":
            self.action_answer()
        else:
            self.action_skip()

    def action_answer(self) -> None:
        self.dismiss(self.query_one("#answers", TextArea).text.strip())

    def action_skip(self) -> None:
        self.dismiss("")


class ExtendBody(VerticalScroll):
    """Where focus starts: a neutral place no key answers from."""


class WorkflowExtendModal(MilkModal[bool]):
    """True: continue the sprint with twice the passes; False (Stop, Esc): leave it there
    (``/workflow resume`` offers this again)."""

    DEFAULT_CSS = """
    WorkflowExtendModal .milk-modal { width: 72; border: thick $warning; }
    WorkflowExtendModal ExtendBody { height: auto; max-height: 10; }
    WorkflowExtendModal ExtendBody:focus { background: $boost; }
    WorkflowExtendModal .wf-keys { color: $text-muted; margin-top: 1; }
    """
    AUTO_FOCUS = "ExtendBody"
    BINDINGS = [Binding("escape", "stop", "Stop", id="milk.workflow.stop")]

    def __init__(self, sprint: int, max_passes: int) -> None:
        super().__init__(f"Sprint {sprint} used its {max_passes} passes")
        self.sprint = sprint
        self.max_passes = max_passes

    def compose_body(self) -> ComposeResult:
        with ExtendBody():
            yield Static(
                f"The evaluator did not pass sprint {self.sprint} in {self.max_passes} "
                f"passes. Extend continues it with {2 * self.max_passes}; Stop leaves the "
                "workflow where it is (/workflow resume offers this again).",
                markup=False,
            )
        yield Static("tab to a button, then enter · Esc stop", classes="wf-keys", markup=False)

    def compose_buttons(self) -> ComposeResult:
        yield Button("Stop", id="stop", variant="error")
        yield Button(f"Extend to {2 * self.max_passes} passes", id="extend", variant="primary")

    def on_key(self, event: events.Key) -> None:
        # Typed text is never an answer: swallowed, whatever has focus.
        if event.is_printable and event.character and event.key != "space":
            event.stop()
            event.prevent_default()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "extend")

    def action_stop(self) -> None:
        self.dismiss(False)
