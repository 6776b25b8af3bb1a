"""The task list for the UI and the CLI: the live session's tasks (or a named session's),
and the global ones; ``add`` and ``done`` publish ``TasksChanged`` when a board is there."""

from __future__ import annotations

from collections.abc import Callable

from milk_tui.model.task import Task
from milk_tui.storage.tasks import TaskNotFound, TaskStore

__all__ = ["TaskNotFound", "Tasks"]


class Tasks:
    def __init__(
        self, store: TaskStore, session_id: str, on_change: Callable[[], None] = lambda: None
    ) -> None:
        self._store = store
        self.session_id = session_id
        self._on_change = on_change

    def list(self, *, global_only: bool = False) -> list[Task]:
        """The session's tasks, oldest first, then the global ones (only those: ``global_only``)."""
        return self._store.tasks_of(None if global_only or not self.session_id else self.session_id)

    def add(self, text: str, *, global_: bool = False) -> Task:
        """``ValueError`` for empty text."""
        task = self._store.create(text, None if global_ or not self.session_id else self.session_id)
        self._on_change()
        return task

    def done(self, ref: str) -> Task:
        """Mark the task ``ref`` (an id or a unique 4+ prefix) done; ``TaskNotFound`` (a
        ``ValueError``) with one line otherwise."""
        task = self._store.update(ref, self.session_id or None, status="done")
        self._on_change()
        return task
