"""The tools of ready MCP servers as a ``ToolBox``: each named ``mcp__<server>__<tool>``
(the server in the name, so two servers never collide; only the characters and the length
every provider accepts), with the server's JSON schema; a call is asked about like a tool
that runs something (docs/adr/0011-permissions-in-one-place.md).  Arguments the schema
shows to be paths (``path_args_of``) are resolved like the built-in tools' paths, so one
outside the working folder is asked about even when the tool is granted
(docs/adr/0033-path-first-permissions.md).  At most ``MAX_TOOLS_TOTAL`` tools in all
(``limits.py``); a result has every credential of the servers masked, so a tool that echoes
its key or environment gives the model, the screen and the store ``***``."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from milk_tui.agents.base import ToolOutcome, ToolSpec
from milk_tui.agents.mcp.limits import MAX_TOOLS_TOTAL
from milk_tui.agents.mcp.path_args import path_args_of
from milk_tui.agents.mcp.results import outcome_of
from milk_tui.agents.redact import Redactor

if TYPE_CHECKING:
    from milk_tui.agents.mcp.connection import McpConnection

MAX_NAME = 64
"""OpenAI and Anthropic both refuse tool names longer than this."""
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def tool_name(server: str, tool: str) -> str:
    name = f"mcp__{_UNSAFE.sub('_', server)}__{_UNSAFE.sub('_', tool)}"
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha1(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return name[: MAX_NAME - 9] + "_" + digest


class McpToolBox:
    def __init__(self, conns: Iterable[McpConnection], redact: Redactor | None = None) -> None:
        self._redact = redact or Redactor()
        self._tools: dict[str, tuple[McpConnection, str, dict[str, Any]]] = {}
        self._specs: list[ToolSpec] = []
        self.dropped: dict[str, int] = {}
        """Server → how many of its tools were past ``MAX_TOOLS_TOTAL``."""
        for c in conns:
            for t in c.tools:
                if len(self._specs) >= MAX_TOOLS_TOTAL:
                    self.dropped[c.name] = self.dropped.get(c.name, 0) + 1
                    continue
                name = tool_name(c.name, t.name)
                if name in self._tools:  # two names that differ only in unsafe characters
                    name = tool_name(c.name, t.name + "\0" + str(len(self._tools)))[:MAX_NAME]
                spec = _spec(name, c.name, t)
                self._tools[name] = (c, t.name, spec.parameters)
                self._specs.append(spec)

    def specs(self) -> list[ToolSpec]:
        return list(self._specs)

    async def call(self, name: str, arguments: str) -> ToolOutcome:
        from milk_tui.agents.mcp.connection import McpCallError

        owner = self._tools.get(name)
        if owner is None:
            return ToolOutcome(f"unknown tool {name!r}", is_error=True)
        conn, tool, schema = owner
        try:
            args = json.loads(arguments or "{}")
            result = await conn.call(tool, declared(schema, args))
        except McpCallError as e:
            return ToolOutcome(self._redact.values(str(e)), is_error=True)
        except ValueError as e:
            return ToolOutcome(f"invalid JSON arguments for tool {name!r}: {e}", is_error=True)
        out = outcome_of(conn.name, result)
        return ToolOutcome(self._redact.values(out.content), is_error=out.is_error)


def declared(schema: dict[str, Any], args: Any) -> dict[str, Any]:
    """The arguments the schema declares: the permission check resolved the path arguments
    the schema names, so a server must not get a ``path`` it never declared.  A schema
    open to more (``additionalProperties``) passes everything; its every string is then
    taken as a path (``path_args_of``)."""
    if not isinstance(args, dict):
        return {}
    if schema.get("additionalProperties"):
        return args
    props = schema.get("properties")
    return {k: v for k, v in args.items() if isinstance(props, dict) and k in props}


def _spec(name: str, server: str, tool: Any) -> ToolSpec:
    schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
    if schema.get("type") != "object":
        schema = {"type": "object", "properties": {}}
    description = (tool.description or tool.title or tool.name).strip()
    return ToolSpec(
        name=name,
        description=f"[MCP server {server}] {description}",
        parameters=schema,
        effect="run",
        path_args=path_args_of(schema),
    )
