"""The task list the user, both agents and the Claude CLI share, and its ``TasksChanged``.

``TaskBoard`` follows the live session (``/new`` and a switch move it: the list is always
the one of the session now in use) and publishes the list after every change.  It also
listens to the agents' tool events:

* the Claude CLI's own to-do list — its ``TodoWrite`` calls, each the whole list
  (``todos[{content, status pending|in_progress|completed}]``,
  https://docs.anthropic.com/en/docs/claude-code/settings#tools-available-to-claude) — is
  mirrored as the session's tasks of origin "claude" once the call succeeded;
* a result of the tasks MCP server's tools (``mcp__milk-tasks__…``, written by that
  server's own process) means the table changed: the list is read again and published.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable

from milk_tui.config.mcp import McpServerConfig
from milk_tui.engine.bus import EventBus
from milk_tui.engine.task_tools import TaskToolBox
from milk_tui.model import events as ev
from milk_tui.model.task import Task, TaskStatus, status_of
from milk_tui.storage.db import StorageError
from milk_tui.storage.tasks import TaskStore

MCP_NAME = "milk-tasks"
"""The tasks MCP server's name for the Claude CLI: its tools are ``mcp__milk-tasks__…``."""
MCP_PREFIX = f"mcp__{MCP_NAME}__"
CLAUDE_ORIGIN = "claude"
TODO_TOOLS = frozenset({"TodoWrite", "TaskCreate", "TaskUpdate"})
"""Claude Code's own list: ``TodoWrite`` (the whole list each call) and, in newer versions,
``TaskCreate`` (answers "Task #N created…") and ``TaskUpdate`` (``taskId``, ``status``
pending/in_progress/completed/deleted, ``subject``)."""
_CREATED = re.compile(r"Task #(\w+) created")


def todo_items(arguments: str) -> list[tuple[str, TaskStatus]] | None:
    """(text, status) of each item of a ``TodoWrite`` call; None when it is not one."""
    try:
        args = json.loads(arguments or "{}")
    except ValueError:
        return None
    todos = args.get("todos") if isinstance(args, dict) else None
    if not isinstance(todos, list):
        return None
    items: list[tuple[str, TaskStatus]] = []
    for t in todos:
        if isinstance(t, dict) and isinstance(t.get("content"), str):
            items.append((t["content"], status_of(str(t.get("status") or "")) or "open"))
    return items


class TaskBoard:
    def __init__(self, store: TaskStore, bus: EventBus, session_id: Callable[[], str]) -> None:
        self.store = store
        self.bus = bus
        self._session_id = session_id
        self._todo_calls: dict[str, tuple[str, str]] = {}
        """A ``TodoWrite`` call's arguments until its result says it ran."""
        self._mcp_calls: set[str] = set()
        bus.add_listener(self._on_event)

    @property
    def session_id(self) -> str:
        return self._session_id()

    def tasks(self) -> list[Task]:
        return self.store.tasks_of(self.session_id)

    def publish(self) -> None:
        """Publish the live session's list (after a change, a switch, another process's write)."""
        sid = self.session_id
        try:
            tasks = self.store.tasks_of(sid)
        except StorageError as e:
            self.bus.publish(ev.Notice(level="warning", message=f"tasks unavailable: {e}"))
            return
        self.bus.publish(ev.TasksChanged(session_id=sid, tasks=tuple(tasks)))

    def toolbox(self) -> TaskToolBox:
        """The task tools of an API agent's turn, bound to the session the turn runs in."""
        return TaskToolBox(self.store, self.session_id, on_change=self.publish)

    def mcp_server(self) -> McpServerConfig:
        """The tasks MCP server for a Claude CLI turn: this Python, this database, the live
        session (engine/tasks_mcp.py)."""
        args = ["-m", "milk_tui.engine.tasks_mcp", "--db", str(self.store.db.path)]
        return McpServerConfig(
            name=MCP_NAME,
            command=sys.executable,
            args=[*args, "--session", self.session_id],
        )

    def _on_event(self, e: ev.BusEvent) -> None:
        match e:
            case ev.ToolCall(name=name, call_id=call_id) if name in TODO_TOOLS:
                self._todo_calls[call_id] = (name, e.arguments)
            case ev.ToolResult(call_id=call_id, is_error=failed) if call_id in self._todo_calls:
                name, arguments = self._todo_calls.pop(call_id)
                if not failed:
                    self._mirror(name, arguments, e.content)
            case ev.ToolCall(name=name, call_id=call_id) if name.startswith(MCP_PREFIX):
                self._mcp_calls.add(call_id)
            case ev.ToolResult(call_id=call_id) if call_id in self._mcp_calls:
                self._mcp_calls.discard(call_id)
                self.publish()  # the server wrote the table in its own process

    def _mirror(self, tool: str, arguments: str, result: str) -> None:
        """Claude's list as it now stands, after a call of ``tool`` succeeded."""
        try:
            args = json.loads(arguments or "{}")
        except ValueError:
            return
        if not isinstance(args, dict):
            return
        sid, store = self.session_id, self.store
        try:
            if tool == "TodoWrite":
                items = todo_items(arguments)
                if items is None:
                    return
                store.replace_origin(sid, CLAUDE_ORIGIN, items)
            elif tool == "TaskCreate":
                found = _CREATED.search(result)
                text = str(args.get("subject") or "")
                if not found or not text.strip():
                    return
                store.adopt(sid, CLAUDE_ORIGIN, found.group(1), text, "open")
            else:
                raw = str(args.get("status") or "")
                subject = args.get("subject")
                changed = store.update_by_ref(
                    sid, CLAUDE_ORIGIN, str(args.get("taskId") or ""),
                    status=status_of(raw), delete=raw == "deleted",
                    text=subject if isinstance(subject, str) else None,
                )  # fmt: skip
                if not changed:
                    return
        except (StorageError, ValueError) as e:
            self.bus.publish(
                ev.Notice(level="warning", message=f"Claude's to-do list not kept: {e}")
            )
            return
        self.publish()
