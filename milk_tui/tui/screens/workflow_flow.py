"""What the main screen does for the dev workflow: start or resume it through the façade,
ask the designer's questions and offer the extension as modals, and say where it is.

The workflow's task reports through bus events; a task that ends with an exception (a
defect: the runner turns failures into a result) is said as one error line, never lost."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING

from milk_tui.model import events as ev
from milk_tui.model.workflow import WorkflowState
from milk_tui.tui.transcript import Kind
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.workflow_pane import WorkflowPane
from milk_tui.tui.widgets.workflow_stream import RoleStream

if TYPE_CHECKING:
    from milk_tui.facade.workflow import WorkflowResult
    from milk_tui.tui.screens.main import MainScreen


def say(screen: MainScreen, text: str, kind: Kind = "notice") -> None:
    screen.query_one(Conversation).add_line(kind, text)


def watch(screen: MainScreen, task: asyncio.Task[WorkflowResult]) -> None:
    def done(t: asyncio.Task[WorkflowResult]) -> None:
        if not t.cancelled() and (exc := t.exception()) is not None:
            say(screen, f"/workflow: {exc}", "error")

    task.add_done_callback(done)


def resume(screen: MainScreen, *, extend: bool = False) -> None:
    """WorkflowError (a ValueError: the dispatcher's one line) when it cannot."""
    watch(screen, screen.facade.workflow.resume(extend=extend))


def ask_questions(screen: MainScreen, e: ev.WorkflowQuestions) -> None:
    from milk_tui.tui.screens.workflow_modals import WorkflowQuestionsModal

    def answered(answers: str | None) -> None:
        if not answers:
            say(screen, "the designer's questions were skipped: it plans with its defaults")
        screen.facade.workflow.answer_questions(e.request_id, answers or "")

    screen.app.push_screen(WorkflowQuestionsModal(e.questions), answered)


def offer_extend(screen: MainScreen, sprint: int, max_passes: int) -> None:
    from milk_tui.tui.screens.workflow_modals import WorkflowExtendModal

    def chosen(extend: bool | None) -> None:
        if not extend:
            say(screen, f"workflow stopped: sprint {sprint} used its {max_passes} passes; "
                        "/workflow resume offers to extend it")  # fmt: skip
            return
        try:
            resume(screen, extend=True)
        except ValueError as err:
            say(screen, f"/workflow: {err}", "error")

    screen.app.push_screen(WorkflowExtendModal(sprint, max_passes), chosen)


def finished_line(e: ev.WorkflowFinished) -> tuple[Kind, str]:
    if e.ok:
        return "notice", "workflow complete; the session has its summary"
    if e.cancelled:
        return "notice", "workflow interrupted (/workflow resume continues)"
    if e.exhausted_sprint:
        return "warning", (f"sprint {e.exhausted_sprint} used its {e.max_passes} passes; "
                           f"extend continues with {2 * e.max_passes}")  # fmt: skip
    return "error", f"workflow error: {e.error}"


def status_text(state: WorkflowState | None) -> str:
    """As ``milk-tui workflow status``."""
    if state is None:
        return "no workflow in this session"
    history = ", ".join(f"s{v.sprint}p{v.pass_} {v.verdict}" for v in state.verdict_history)
    return (
        f"workflow {state.workflow_id} ({state.name}): {state.task}\n"
        f"  {state.position()}  role: {state.role}"
        + ("  (out of passes)" if state.exhausted else "")
        + f"\n  agents: {json.dumps(state.agent_map)}\n  verdicts: {history or 'none yet'}\n"
        f"  cost ${state.cost_usd:.4f}  elapsed {state.elapsed_s:.0f}s"
    )


class WorkflowWatch:
    """The main screen's share of the workflow events: the pane, the roles' text in the
    conversation, the questions and the extend offer."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self._stream: RoleStream | None = None

    def session_opened(self) -> None:
        """A session is shown: its unfinished workflow (if any) is in the pane."""
        wf = self.screen.facade.workflow
        if not wf.running:
            self.screen.query_one(WorkflowPane).show_state(wf.state(), only_live=True)

    def handle(self, e: ev.BusEvent) -> None:
        if self._stream is None:
            self._stream = RoleStream(self.screen.query_one(Conversation))
        self._stream.handle(e)
        self.screen.query_one(WorkflowPane).handle_bus_event(e)
        match e:
            case ev.WorkflowQuestions():
                ask_questions(self.screen, e)
            case ev.WorkflowFinished():
                kind, line = finished_line(e)
                say(self.screen, line, kind)
                if e.exhausted_sprint:
                    offer_extend(self.screen, e.exhausted_sprint, e.max_passes)
