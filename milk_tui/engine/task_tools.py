"""The task tools (``create_task``, ``update_task``, ``list_tasks``, ``complete_task``) over
the one task table, for the API agents' tool loop and for the tasks MCP server the Claude
CLI is given (engine/tasks_mcp.py) — one implementation, two ways in.

They change milk's own state (like the memory tools), never the user's files or the
network, so they run without a permission question (effect ``read``,
docs/adr/0040-tasks.md).  A task is written when the tool runs, like a file edit: a turn
that fails afterwards does not take it back.  Results are short JSON, so a small model can
read ids back; every one is capped like the memory tools' results.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from milk_tui.agents.base import ToolEffect, ToolOutcome, ToolSpec
from milk_tui.agents.tools.box import parse_arguments
from milk_tui.engine.memory_tools import DEFAULT_RESULT_MAX_BYTES, cap
from milk_tui.model.task import STATUSES, Task, status_of
from milk_tui.storage.db import StorageError
from milk_tui.storage.tasks import TaskStore

OWN_STATE: ToolEffect = "read"
"""Milk's own task list: no question (docs/adr/0040-tasks.md)."""

_STATUS = {"type": "string", "enum": list(STATUSES)}
SPECS = [
    ToolSpec("create_task",
             "Add a task to the plan shown to the user (this session's list unless scope is "
             "global). Returns its id.",
             {"type": "object", "properties": {
                 "text": {"type": "string", "description": "the task, one line"},
                 "status": {**_STATUS, "description": "default open"},
                 "scope": {"type": "string", "enum": ["session", "global"],
                           "description": "global: shown in every session (default session)"}},
              "required": ["text"]}, effect=OWN_STATE),
    ToolSpec("update_task", "Change a task's status or text, by id (or a unique 4+ prefix).",
             {"type": "object", "properties": {
                 "id": {"type": "string"},
                 "status": _STATUS,
                 "text": {"type": "string", "description": "new text"}},
              "required": ["id"]}, effect=OWN_STATE),
    ToolSpec("list_tasks", "The tasks of this session and the global ones, as JSON rows.",
             {"type": "object", "properties": {
                 "include_global": {"type": "boolean", "description": "default true"}},
              "required": []}, effect=OWN_STATE),
    ToolSpec("complete_task", "Mark a task done, by id (or a unique 4+ prefix).",
             {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
             effect=OWN_STATE),
]  # fmt: skip
NAMES = frozenset(s.name for s in SPECS)
_BY_NAME = {s.name: s for s in SPECS}


def rows_json(tasks: list[Task]) -> str:
    return json.dumps([t.row() for t in tasks], ensure_ascii=False)


class TaskToolBox:
    """The task tools for one session (the live one when the turn started)."""

    def __init__(
        self,
        store: TaskStore,
        session_id: str,
        on_change: Callable[[], None] = lambda: None,
        max_bytes: int = DEFAULT_RESULT_MAX_BYTES,
    ) -> None:
        self.store = store
        self.session_id = session_id
        self.on_change = on_change
        self.max_bytes = max_bytes

    def specs(self) -> list[ToolSpec]:
        return list(SPECS)

    async def call(self, name: str, arguments: str) -> ToolOutcome:
        return self.run(name, arguments)

    def run(self, name: str, arguments: str) -> ToolOutcome:
        """``call`` without the coroutine: the MCP server's handlers are plain functions."""
        spec = _BY_NAME.get(name)
        if spec is None:
            return ToolOutcome(f"unknown tool {name!r}", is_error=True)
        args = parse_arguments(name, arguments, spec)
        if isinstance(args, ToolOutcome):
            return args
        try:
            out, changed = self._handle(name, args)
        except ValueError as e:  # bad text, an unknown or ambiguous id: one line
            return ToolOutcome(f"{name}: {e}", is_error=True)
        except StorageError as e:
            return ToolOutcome(f"{name}: tasks unavailable: {e}", is_error=True)
        if changed:
            self.on_change()
        return ToolOutcome(cap(out, self.max_bytes))

    def _handle(self, name: str, a: dict[str, Any]) -> tuple[str, bool]:
        store, sid = self.store, self.session_id
        status = status_of(str(a.get("status") or "")) if a.get("status") else None
        if name == "create_task":
            text = str(a.get("text") or a.get("title") or "")
            scope = a.get("scope") or "session"
            t = store.create(text, None if scope == "global" else sid, status=status or "open")
            return json.dumps(t.row(), ensure_ascii=False), True
        if name == "list_tasks":
            tasks = store.tasks_of(sid, include_global=a.get("include_global", True) is not False)
            return rows_json(tasks), False
        ref = str(a.get("id") or "")
        if name == "complete_task":
            status = "done"
        elif status is None and a.get("text") is None:
            raise ValueError("give a status or a text to change")
        new_text = str(a["text"]) if a.get("text") is not None else None
        t = store.update(ref, sid, status=status, text=new_text)
        return json.dumps(t.row(), ensure_ascii=False), True
