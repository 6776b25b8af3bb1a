"""Side-effecting test tools for permission tests: a real ``write_file`` (effect write) and
a ``peek`` read, both with a ``path`` argument, added to every turn's tool box."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from milk_tui.agents.base import ToolOutcome, ToolSpec
from milk_tui.agents.tools.box import CompositeToolBox, LocalToolBox, Tool
from milk_tui.engine.request_builder import RequestBuilder

_PATH = {"path": {"type": "string"}}
WRITE = ToolSpec(
    "write_file",
    "write a file",
    {"type": "object", "properties": {**_PATH, "content": {"type": "string"}}},
    effect="write",
    path_args=("path",),
)
PEEK = ToolSpec(
    "peek", "read a file", {"type": "object", "properties": _PATH}, "read", path_args=("path",)
)


def tool_box(cwd: Path) -> LocalToolBox:
    async def write(args: dict[str, Any]) -> ToolOutcome:
        (cwd / args["path"]).write_text(args["content"])
        return ToolOutcome(f"wrote {args['path']}")

    async def peek(args: dict[str, Any]) -> ToolOutcome:
        return ToolOutcome((cwd / args["path"]).read_text())

    return LocalToolBox([Tool(WRITE, write), Tool(PEEK, peek)])


def add_test_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every turn's tool box gets ``tool_box`` for the session's folder."""
    original = RequestBuilder._toolbox

    def toolbox(self: RequestBuilder, *a: Any, **kw: Any) -> CompositeToolBox:
        return CompositeToolBox([original(self, *a, **kw), tool_box(Path(self._state.cwd))])

    monkeypatch.setattr(RequestBuilder, "_toolbox", toolbox)
