"""MCP servers for the UI and the command line: their state, their tools, and the actions of
``/mcp`` and ``milk-tui mcp`` (enable, disable and reconnect last for this run)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

from milk_tui.agents.mcp.connection import AUTH_WAIT_S
from milk_tui.agents.mcp.manager import McpManager, ServerStatus
from milk_tui.agents.mcp.toolbox import tool_name
from milk_tui.config.load import load_config
from milk_tui.config.paths import data_dir

__all__ = ["McpServers", "ServerStatus", "ToolView", "describe", "open_servers"]

HEADLESS_WAIT_S = 60.0
"""Upper bound on waiting for servers before a ``-p`` turn (each has its connect_timeout)."""


@dataclass(frozen=True, slots=True)
class ToolView:
    name: str
    """As the agents see it: ``mcp__<server>__<tool>``."""
    tool: str
    description: str


def describe(s: ServerStatus) -> str:
    """One line of state: ``ready, 13 tools`` / ``down: why``."""
    match s.state:
        case "ready":
            return f"ready, {len(s.tools)} tool{'s' if len(s.tools) != 1 else ''}"
        case "down" | "needs_auth":
            return f"{s.state.replace('_', ' ')}: {s.error}"
        case _:
            return s.state


class McpServers:
    def __init__(self, manager: McpManager | None) -> None:
        self._m = manager

    def __bool__(self) -> bool:
        return bool(self._m)

    def start(self) -> None:
        """Start the servers in the background (call on the running event loop)."""
        if self._m:
            self._m.start()

    async def wait_settled(self, timeout: float = HEADLESS_WAIT_S) -> None:
        """Until each server is ready or has failed once: a headless turn has no later
        moment to pick up a server's tools."""
        if self._m:
            await self._m.wait_settled(timeout)

    def statuses(self) -> list[ServerStatus]:
        return self._m.statuses() if self._m else []

    def tools(self, name: str) -> list[ToolView] | None:
        c = self._m.get(name) if self._m else None
        if c is None:
            return None
        return [
            ToolView(tool_name(c.name, t.name), t.name, (t.description or "").strip())
            for t in c.tools
        ]

    def enable(self, name: str) -> bool:
        return self._m is not None and self._m.set_enabled(name, True)

    def disable(self, name: str) -> bool:
        return self._m is not None and self._m.set_enabled(name, False)

    def authenticate(self, name: str) -> bool:
        """Connect again now; an OAuth server sends the user to sign in (the page's address
        arrives as a warning notice, and opens in a local browser when there is one)."""
        return self._m is not None and self._m.authenticate(name) is not None

    async def sign_in(self, name: str, timeout: float = AUTH_WAIT_S) -> ServerStatus | None:
        """``authenticate`` and wait for the outcome (the command line)."""
        c = self._m.authenticate(name) if self._m else None
        if c is None:
            return None
        await c.wait_settled(timeout)
        return next(s for s in self.statuses() if s.name == c.name)

    def reconnect(self, name: str) -> bool:
        return self._m is not None and self._m.reconnect(name)


@contextlib.asynccontextmanager
async def open_servers(
    config_path: str | Path | None = None, on_warning: Callable[[str], None] = lambda _: None
) -> AsyncIterator[McpServers]:
    """The configured servers, started, for a command that outlives no session.  Raises
    ``ConfigError``."""
    config, _, _ = load_config(config_path)
    manager = McpManager(
        config.mcp_servers, log_dir=data_dir() / "mcp", cwd=os.getcwd(), on_warning=on_warning
    )
    try:
        servers = McpServers(manager)
        await servers.wait_settled()
        yield servers
    finally:
        await manager.aclose()
