"""The primary agent's built-in tools: read-only file tools, ``current_need``, memory and
``escalate``.

Side effects leave through callbacks the dispatcher hands in (``on_need``,
``on_record_memory``) so the agent never touches the session or the memory store itself.
File tools are read-only and confined to the cwd (see ``files.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from milk_tui.agents.base import ToolOutcome, ToolSpec
from milk_tui.agents.tools import files
from milk_tui.agents.tools.box import LocalToolBox, Tool

OnNeed = Callable[[str], None]
OnRecordMemory = Callable[[str, str], str]


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required}


SPECS: dict[str, ToolSpec] = {
    "escalate": ToolSpec(
        "escalate",
        "Hand this task to the escalation agent. Use only for architecture, complex multi-file "
        "refactors or work beyond your capability. Ends your turn.",
        _obj(
            {"reason": {"type": "string", "description": "brief for the escalation agent"}},
            ["reason"],
        ),
    ),
    "current_need": ToolSpec(
        "current_need",
        "Record the user's current goal whenever they state a new one.",
        _obj({"goal": {"type": "string", "description": "the goal in one sentence"}}, ["goal"]),
    ),
    "record_memory": ToolSpec(
        "record_memory",
        "Remember a durable fact or preference the user stated.",
        _obj(
            {
                "content": {"type": "string", "description": "the fact, one sentence"},
                "consumer": {
                    "type": "string",
                    "enum": ["primary", "escalation", "all", ""],
                    "description": "which agent needs it (default all)",
                },
            },
            ["content"],
        ),
    ),
    "read_file": ToolSpec(
        "read_file",
        "Read a text file in the working directory; lines are numbered. Use offset (0-based "
        "line) and limit to page through long files.",
        _obj(
            {
                "path": {"type": "string"},
                "offset": {"type": "integer"},
                "limit": {"type": "integer"},
            },
            ["path"],
        ),
    ),
    "list_dir": ToolSpec(
        "list_dir",
        "List one directory (top level only) of the working directory.",
        _obj({"path": {"type": "string", "description": "default ."}}, []),
    ),
    "grep": ToolSpec(
        "grep",
        "Search file contents under a path (default .) with a regular expression; prints "
        "path:line:text.",
        _obj({"pattern": {"type": "string"}, "path": {"type": "string"}}, ["pattern"]),
    ),
}


class BuiltinToolBox(LocalToolBox):
    def __init__(
        self,
        cwd: str | Path,
        *,
        on_need: OnNeed,
        on_record_memory: OnRecordMemory | None,
        allow_escalate: bool,
        included: Iterable[str] | None = None,
        excluded: Iterable[str] | None = None,
    ) -> None:
        super().__init__()
        self.cwd = Path(cwd).resolve()
        self._on_need = on_need
        self._on_record_memory = on_record_memory
        handlers = {
            "escalate": self._escalate,
            "current_need": self._current_need,
            "record_memory": self._record_memory,
            "read_file": self._read_file,
            "list_dir": self._list_dir,
            "grep": self._grep,
        }
        inc = set(included) if included else None
        exc = set(excluded or ())
        for name, handler in handlers.items():
            if name == "escalate" and not allow_escalate:
                continue
            if name == "record_memory" and on_record_memory is None:
                continue
            if (inc is not None and name not in inc) or name in exc:
                continue
            self.add(Tool(SPECS[name], handler))

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

    async def _read_file(self, args: dict[str, Any]) -> ToolOutcome:
        return await self._fs(
            files.read_file, self.cwd, args["path"], args.get("offset") or 0, args.get("limit")
        )

    async def _list_dir(self, args: dict[str, Any]) -> ToolOutcome:
        return await self._fs(files.list_dir, self.cwd, args.get("path") or ".")

    async def _grep(self, args: dict[str, Any]) -> ToolOutcome:
        return await self._fs(files.grep, self.cwd, args["pattern"], args.get("path") or ".")

    @staticmethod
    async def _fs(fn: Callable[..., str], *args: Any) -> ToolOutcome:
        """File work runs in a thread so a big grep never stalls the event loop (the UI)."""
        try:
            return ToolOutcome(await asyncio.to_thread(fn, *args))
        except files.ToolFailure as e:
            return ToolOutcome(str(e), is_error=True)
        except OSError as e:
            return ToolOutcome(f"{e.strerror or e}", is_error=True)
