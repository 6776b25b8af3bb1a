"""The dev workflow as the TUI and the CLI drive it (engine/workflow/control.py): start,
resume (or extend), reconfigure, clear, answer the designer's questions, read the state.
Everything it does while running arrives as ``Workflow*`` bus events."""

from __future__ import annotations

import asyncio

from milk_tui.engine.runtime import Runtime
from milk_tui.engine.turn_lifecycle import BusyError
from milk_tui.engine.workflow.control import WorkflowControl, WorkflowError
from milk_tui.engine.workflow.runner import WorkflowResult
from milk_tui.model.errors import StorageError
from milk_tui.model.workflow import WorkflowState

__all__ = ["WorkflowError", "WorkflowResult", "Workflows"]


class Workflows:
    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime

    @property
    def _control(self) -> WorkflowControl:
        return self._runtime.dispatcher.workflow

    def _idle(self) -> None:
        if self._runtime.dispatcher.busy:
            raise WorkflowError("a turn or a workflow is running")

    def start(
        self, task: str, agent_map: dict[str, str], prompts: dict[str, str] | None = None
    ) -> asyncio.Task[WorkflowResult]:
        """WorkflowError (one line) when it cannot start."""
        self._idle()
        try:
            return self._control.start(task, agent_map, prompts)
        except (StorageError, BusyError) as e:
            raise WorkflowError(str(e)) from None

    def resume(self, *, extend: bool = False) -> asyncio.Task[WorkflowResult]:
        self._idle()
        try:
            return self._control.resume(extend=extend)
        except StorageError as e:
            raise WorkflowError(str(e)) from None

    def reconfigure(self, agent_map: dict[str, str]) -> WorkflowState:
        self._idle()
        return self._control.reconfigure(agent_map)

    def clear(self) -> WorkflowState:
        try:
            return self._control.clear()
        except StorageError as e:
            raise WorkflowError(str(e)) from None

    def state(self) -> WorkflowState | None:
        """The session's newest workflow (None: none, or its state file is unreadable)."""
        try:
            return self._control.current()
        except StorageError:
            return None

    def live_line(self) -> str:
        """One line offering to resume the session's unfinished workflow; "" when none."""
        wf = self.state()
        if wf is None or wf.finished:
            return ""
        why = " out of passes —" if wf.exhausted else ""
        return (
            f"workflow dev in progress ({wf.position()}, next: {wf.role}){why} — "
            "`milk-tui workflow resume` continues it, `milk-tui workflow clear` sets it aside"
        )

    def answer_questions(self, request_id: str, answers: str) -> None:
        self._control.answer_questions(request_id, answers)

    @property
    def running(self) -> bool:
        return bool(self._control.running)
