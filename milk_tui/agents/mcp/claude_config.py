"""The ``--mcp-config`` file that hands the Claude CLI the same MCP servers the primary
gets: ``{"mcpServers": {name: {"type": "stdio", "command", "args", "env"} | {"type":
"http"|"sse", "url", "headers"}}}`` — the format of https://docs.anthropic.com/en/docs/claude-code/mcp.
Written 0600 (it may carry a bearer token) and removed after the run by the caller."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Sequence
from typing import Any

from milk_tui.agents.base import AgentError
from milk_tui.agents.mcp.auth import HeaderAuth
from milk_tui.agents.redact import Redactor
from milk_tui.config.mcp import McpServerConfig


async def payload(
    servers: Sequence[McpServerConfig], redact: Redactor, wait_for: Sequence[str] = ()
) -> dict[str, Any]:
    """A server whose ``token_cmd`` fails is left out (the CLI would only be refused).
    Servers named in ``wait_for`` carry ``alwaysLoad``: the CLI (2.1.x) connects them before
    the first model request instead of in the background, so their tools are there from
    the first call (milk's own tasks server, started with the turn)."""
    out: dict[str, Any] = {}
    for s in servers:
        if s.transport == "stdio":
            entry: dict[str, Any] = {"type": "stdio", "command": s.command, "args": list(s.args)}
            if s.env:
                entry["env"] = dict(s.env)
            if s.name in wait_for:
                entry["alwaysLoad"] = True
        else:
            entry = {"type": s.transport, "url": s.url}
            try:
                headers = await HeaderAuth(s, redact).headers()
            except AgentError:
                continue
            if headers:
                entry["headers"] = headers
        out[s.name] = entry
    return {"mcpServers": out}


async def write_mcp_config(
    servers: Sequence[McpServerConfig], redact: Redactor, wait_for: Sequence[str] = ()
) -> str | None:
    """The file's path, or None when there is no server to pass."""
    if not servers:
        return None
    body = await payload(servers, redact, wait_for)
    fd, path = tempfile.mkstemp(prefix="milk-mcp-", suffix=".json")  # created 0600
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(body, f)
    return path


def mcp_config_argv(path: str | None) -> list[str]:
    return ["--mcp-config", path] if path else []


def remove(path: str | None) -> None:
    if path:
        with contextlib.suppress(OSError):
            os.unlink(path)
