"""The primary agent's built-in tools: files, shell, HTTP, ``current_need``, memory and
``escalate``.

Side effects on application state leave through callbacks the dispatcher hands in
(``on_need``, ``on_record_memory``) so the agent never touches the session or the memory
store itself.  Paths resolve through a ``Workspace``: with ``confine_to_cwd`` (the default)
a path outside the working folder is refused; with it off the tool works on it, and the
permission check in the tool loop is what asks the user first.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from milk_tui.agents.base import ToolOutcome
from milk_tui.agents.tools import edit, files, find, http, shell
from milk_tui.agents.tools.box import Handler, LocalToolBox, Tool
from milk_tui.agents.tools.paths import ToolFailure, Workspace
from milk_tui.agents.tools.specs import SPECS

OnNeed = Callable[[str], None]
OnRecordMemory = Callable[[str, str], str]


class BuiltinToolBox(LocalToolBox):
    def __init__(
        self,
        cwd: str | Path,
        *,
        on_need: OnNeed,
        on_record_memory: OnRecordMemory | None,
        allow_escalate: bool,
        confine_to_cwd: bool = True,
    ) -> None:
        super().__init__()
        self.workspace = Workspace(Path(cwd).resolve(), confine=confine_to_cwd)
        self._on_need = on_need
        self._on_record_memory = on_record_memory
        handlers: dict[str, Handler] = {
            "escalate": self._escalate,
            "current_need": self._current_need,
            "record_memory": self._record_memory,
            "read_file": self._read_file,
            "list_dir": self._list_dir,
            "grep": self._grep,
            "find_files": self._find_files,
            "write_file": self._write_file,
            "edit_file": self._edit_file,
            "delete_file": self._delete_file,
            "move_file": self._move_file,
            "bash": self._bash,
            "http_get": self._http_get,
            "http_request": self._http_request,
        }
        for name, handler in handlers.items():
            if name == "escalate" and not allow_escalate:
                continue
            if name == "record_memory" and on_record_memory is None:
                continue
            self.add(Tool(SPECS[name], handler))

    @property
    def cwd(self) -> Path:
        return self.workspace.cwd

    async def _escalate(self, args: dict[str, Any]) -> ToolOutcome:
        reason = str(args["reason"]).strip() or "the primary agent asked to escalate"
        return ToolOutcome("escalating to the escalation agent", escalate_reason=reason)

    async def _current_need(self, args: dict[str, Any]) -> ToolOutcome:
        goal = str(args["goal"]).strip()
        if not goal:
            return ToolOutcome("goal must not be empty", is_error=True)
        self._on_need(goal)
        return ToolOutcome("current need updated")

    async def _record_memory(self, args: dict[str, Any]) -> ToolOutcome:
        assert self._on_record_memory is not None
        content = str(args["content"]).strip()
        if not content:
            return ToolOutcome("content must not be empty", is_error=True)
        return ToolOutcome(self._on_record_memory(content, str(args.get("consumer") or "")))

    async def _read_file(self, a: dict[str, Any]) -> ToolOutcome:
        return await self._fs(files.read_file, a["path"], a.get("offset") or 0, a.get("limit"))

    async def _list_dir(self, a: dict[str, Any]) -> ToolOutcome:
        return await self._fs(files.list_dir, a.get("path") or ".")

    async def _grep(self, a: dict[str, Any]) -> ToolOutcome:
        return await self._fs(files.grep, a["pattern"], a.get("path") or ".")

    async def _find_files(self, a: dict[str, Any]) -> ToolOutcome:
        return await self._fs(find.find_files, a["path"], a["pattern"])

    async def _write_file(self, a: dict[str, Any]) -> ToolOutcome:
        return await self._fs(edit.write_file, a["path"], a["content"])

    async def _edit_file(self, a: dict[str, Any]) -> ToolOutcome:
        return await self._fs(
            edit.edit_file, a["path"], a["old_string"], a["new_string"], bool(a.get("replace_all"))
        )

    async def _delete_file(self, a: dict[str, Any]) -> ToolOutcome:
        return await self._fs(edit.delete_file, a["path"])

    async def _move_file(self, a: dict[str, Any]) -> ToolOutcome:
        return await self._fs(edit.move_file, a["source"], a["destination"])

    async def _bash(self, a: dict[str, Any]) -> ToolOutcome:
        return await shell.bash(self.workspace, a["command"], a.get("timeout_seconds"))

    async def _http_get(self, a: dict[str, Any]) -> ToolOutcome:
        return await http.http_request(a["url"], max_bytes=a.get("max_bytes"), tool="http_get")

    async def _http_request(self, a: dict[str, Any]) -> ToolOutcome:
        return await http.http_request(
            a["url"],
            a.get("method") or "GET",
            a.get("headers"),
            a.get("body") or "",
            a.get("max_bytes"),
        )

    async def _fs(self, fn: Callable[..., str], *args: Any) -> ToolOutcome:
        """File work runs in a thread so a big grep never stalls the event loop (the UI)."""
        try:
            return ToolOutcome(await asyncio.to_thread(fn, self.workspace, *args))
        except ToolFailure as e:
            return ToolOutcome(str(e), is_error=True)
        except OSError as e:
            return ToolOutcome(f"{e.strerror or e}: {e.filename or ''}".rstrip(": "), is_error=True)
