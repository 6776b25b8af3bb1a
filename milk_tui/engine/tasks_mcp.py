"""The tasks MCP server milk-tui hands the Claude CLI: the four task tools over stdio.

``python -m milk_tui.engine.tasks_mcp --db PATH --session ID``

The Claude CLI starts it for one turn (``--mcp-config``, engine/task_board.py), so the
escalation agent keeps the same task list as the API agents.  It writes the milk-tui
database from its own process: every change is one short ``BEGIN IMMEDIATE`` transaction
and SQLite's busy timeout makes it wait for milk-tui's writes (storage/db.py), while WAL
lets both read meanwhile.  milk-tui sees the tool's result in the CLI's stream and reads
the list again (``TaskBoard``).  The tools and their answers are ``TaskToolBox``'s.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from milk_tui.engine.task_tools import TaskToolBox
from milk_tui.storage.db import Database, StorageError
from milk_tui.storage.tasks import TaskStore


def build_server(box: TaskToolBox) -> Any:
    from mcp.server import mcpserver  # the SDK loads only in this process

    server: Any = mcpserver.MCPServer("milk-tasks")

    def run(name: str, args: dict[str, Any]) -> str:
        out = box.run(name, json.dumps({k: v for k, v in args.items() if v is not None}))
        if out.is_error:
            raise ValueError(out.content)  # the SDK answers it as a tool error
        return out.content

    @server.tool()
    def create_task(text: str, status: str | None = None, scope: str | None = None) -> str:
        """Add a task to the plan shown to the user (this session's list unless scope is
        "global"); status: open, in_progress or done. Returns the task with its id."""
        return run("create_task", {"text": text, "status": status, "scope": scope})

    @server.tool()
    def update_task(id: str, status: str | None = None, text: str | None = None) -> str:  # noqa: A002 — the tool's argument name
        """Change a task's status (open, in_progress, done) or text, by id or a unique
        prefix of 4+ characters."""
        return run("update_task", {"id": id, "status": status, "text": text})

    @server.tool()
    def list_tasks(include_global: bool = True) -> str:
        """This session's tasks and the global ones, as JSON rows (id, text, status, scope)."""
        return run("list_tasks", {"include_global": include_global})

    @server.tool()
    def complete_task(id: str) -> str:  # noqa: A002 — the tool's argument name
        """Mark a task done, by id or a unique prefix of 4+ characters."""
        return run("complete_task", {"id": id})

    return server


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="milk-tasks-mcp")
    p.add_argument("--db", required=True)
    p.add_argument("--session", required=True)
    args = p.parse_args(argv)
    try:
        db = Database(args.db)
    except StorageError as e:
        raise SystemExit(f"milk-tasks: {e}") from None
    try:
        build_server(TaskToolBox(TaskStore(db), args.session)).run("stdio")
    finally:
        db.close()


if __name__ == "__main__":
    main()
