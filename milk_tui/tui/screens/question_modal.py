"""An agent's questions to the user (the Claude CLI's ``AskUserQuestion``): for each, its
offered options — one choice, or several when the question allows it — or the user's own
words typed in the field below.  Answer sends them; Skip or Escape declines (the agent is
told the user did not answer).

The result maps each question's text to the chosen label (several comma-separated, as the
CLI expects) or the typed text.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, SelectionList, Static

from milk_tui.model.events import QuestionAsked
from milk_tui.tui.screens.milk_modal import FormModal, ModalBox

Answers = dict[str, str]


def _option_label(option: dict[str, Any]) -> Text:
    t = Text(str(option.get("label") or ""), style="bold")
    if option.get("description"):
        t.append(f" — {option['description']}", style="dim")
    return t


class QuestionModal(FormModal[Answers]):
    DEFAULT_CSS = """
    QuestionModal .milk-modal { width: 90; border: thick $accent; }
    QuestionModal .q-text { margin-top: 1; text-style: bold; }
    QuestionModal RadioSet, QuestionModal SelectionList { width: 1fr; height: auto;
                                                          max-height: 8; }
    QuestionModal .q-keys { color: $text-muted; margin-top: 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "Skip", id="milk.question.skip")]

    def __init__(self, request: QuestionAsked) -> None:
        n = len(request.questions)
        super().__init__(
            f"{request.agent_name} asks you {'a question' if n == 1 else f'{n} questions'}"
        )
        self.request = request

    def compose_body(self) -> ComposeResult:
        for i, q in enumerate(self.request.questions):
            header = str(q.get("header") or "")
            text = Text(f"[{header}] " if header else "", style="dim")
            text.append(str(q.get("question") or ""), style="bold")
            yield Static(text, classes="q-text")
            options = [o for o in q.get("options") or [] if isinstance(o, dict)]
            if q.get("multiSelect"):
                yield SelectionList[str](
                    *((_option_label(o), str(o.get("label") or "")) for o in options),
                    id=f"q{i}",
                )
            else:
                with RadioSet(id=f"q{i}"):
                    for o in options:
                        yield RadioButton(_option_label(o))
            yield Input(placeholder="or type your own answer", id=f"other{i}")
        yield Label("", classes="error")
        yield Static(
            "↑↓ move · space/enter choose · tab next · Esc skip", classes="q-keys", markup=False
        )

    def on_mount(self) -> None:
        # Focusing the first list scrolls the box down to it; on a short terminal that hides
        # the first question's text, so show the top again.
        self.call_after_refresh(lambda: self.query_one(ModalBox).scroll_home(animate=False))

    def compose_buttons(self) -> ComposeResult:
        yield Button("Skip", id="cancel")
        yield Button("Answer", id="answer", variant="primary")

    def answers(self) -> tuple[Answers, list[str]]:
        """The answers given so far, and the questions still without one."""
        out: Answers = {}
        missing: list[str] = []
        for i, q in enumerate(self.request.questions):
            question = str(q.get("question") or "")
            typed = self.query_one(f"#other{i}", Input).value.strip()
            chosen = typed or self._chosen(i, q)
            if chosen:
                out[question] = chosen
            else:
                missing.append(question)
        return out, missing

    def _chosen(self, i: int, q: dict[str, Any]) -> str:
        options = [o for o in q.get("options") or [] if isinstance(o, dict)]
        if q.get("multiSelect"):
            picked = self.query_one(f"#q{i}", SelectionList).selected
            return ", ".join(str(p) for p in picked)
        index = self.query_one(f"#q{i}", RadioSet).pressed_index
        return str(options[index].get("label") or "") if 0 <= index < len(options) else ""

    def action_submit(self) -> None:
        answers, missing = self.answers()
        if missing:
            self.query_one(".error", Label).update(
                Text(f"choose an option or type an answer for: {missing[0]}")  # not markup
            )
            return
        self.dismiss(answers)
