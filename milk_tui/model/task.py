"""A task: one line of a plan the user and the agents keep (``/tasks``, the task tools).

A task belongs to one session (``scope`` "session") or to every session (``scope``
"global").  Ids are 8 random characters of ``[a-z0-9]``; any unique prefix of 4 or more
characters addresses one.  Claude's own to-do list (its ``TodoWrite`` calls) is mirrored as
tasks with ``origin`` "claude" (engine/task_mirror.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

TaskStatus = Literal["open", "in_progress", "done"]
TaskScope = Literal["session", "global"]

STATUSES: tuple[TaskStatus, ...] = ("open", "in_progress", "done")
ID_LENGTH = 8
MIN_PREFIX = 4
"""The shortest id prefix that addresses a task (shorter would match too many)."""
MAX_TEXT = 2000
"""Characters of a task's text kept: a plan line, not a document."""


@dataclass(frozen=True)
class Task:
    id: str
    text: str
    status: TaskStatus
    scope: TaskScope
    session_id: str = ""
    """The session it belongs to; "" for a global task."""
    created_at: float = 0.0
    updated_at: float = 0.0
    origin: str = ""
    """"claude" for an item of Claude's own to-do list mirrored here; "" otherwise."""

    def row(self) -> dict[str, str]:
        """The stable JSON row (``milk-tui tasks list --json``, ``list_tasks``)."""
        return {"id": self.id, "text": self.text, "status": self.status, "scope": self.scope}


def status_of(raw: str) -> TaskStatus | None:
    """Our status for ``raw``, taking Claude's and Go milk's words too; None if unknown."""
    word = raw.strip().lower().replace("-", "_").replace(" ", "_")
    return _WORDS.get(word)


_WORDS: dict[str, TaskStatus] = {
    "open": "open", "pending": "open", "todo": "open",
    "in_progress": "in_progress",
    "done": "done", "completed": "done", "complete": "done",
}  # fmt: skip
