"""Agents' local inference servers (their ``run_cmd``) for the UI and the command line: state,
start and stop, for ``/server`` and ``milk-tui server`` (docs/interfaces.md, "Local servers").

A server started by ``milk-tui server start`` keeps running when that command exits; one a
session started is stopped when the session ends, unless its agent says ``run_cmd_keep``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from milk_tui.config.paths import data_dir
from milk_tui.model import events as ev

if TYPE_CHECKING:  # loaded when a server is first managed: the TUI's widgets import this
    from milk_tui.config.settings import AgentConfig
    from milk_tui.engine.server_on_demand import LocalServers, ServerStatus

__all__ = [
    "Servers",
    "countdown_line",
    "describe",
    "event_line",
    "open_servers",
]

StartResult = Literal["started", "up", "failed"]


def describe(s: ServerStatus) -> str:
    """One line: ``smol  running  pid 123  http://127.0.0.1:8080  log …``."""
    parts = [s.agent, s.state]
    if s.pid:
        parts.append(f"pid {s.pid}")
    if s.url:
        # Loaded here: the main screen names this module, and the redaction patterns
        # (~1 ms) are compiled by the agents' build after its first frame anyway.
        from milk_tui.agents.redact import mask_url_userinfo

        parts.append(mask_url_userinfo(s.url))
    if s.keep:
        parts.append("kept on exit")
    if s.log:
        parts.append(f"log {s.log}")
    return "  ".join(parts)


def event_line(event: ev.BusEvent) -> str | None:
    """The one line a ``Server*`` event shows as (TUI conversation, ``-p`` stderr), or None
    (the countdown and every other event: shown by each UI its own way)."""
    match event:
        case ev.ServerStarting(agent=agent, log=log, timeout_s=timeout):
            where = f"; log {log}" if log else ""
            return f"starting the server of '{agent}' (up to {timeout:g} s{where})"
        case ev.ServerReady(agent=agent, after_s=after):
            return f"the server of '{agent}' is ready after {after:g} s"
        case ev.ServerFailed(error=error):
            return error
        case ev.ServerStopped(agent=agent, pid=pid):
            return f"stopped the server of '{agent}' (pid {pid})"
    return None


def countdown_line(event: ev.ServerCountdown) -> str:
    return f"starting the server of '{event.agent}'… {event.remaining_s} s"


class Servers:
    def __init__(self, servers: LocalServers, agents: Callable[[], list[AgentConfig]]) -> None:
        self._servers = servers
        self._agents = agents

    def agent(self, name: str) -> AgentConfig:
        """The configured agent called ``name`` with a ``run_cmd``; ValueError (one line)
        otherwise."""
        agents = self._agents()
        found = next((a for a in agents if a.name.lower() == name.lower()), None)
        if found is None:
            known = ", ".join(a.name for a in agents if a.run_cmd) or "none has a run_cmd"
            raise ValueError(f"no agent named '{name}' (agents with a run_cmd: {known})")
        if not found.run_cmd:
            raise ValueError(f"agent '{found.name}' has no run_cmd to start a server with")
        return found

    def default_agent(self) -> str:
        """The first configured agent with a ``run_cmd`` (``/server start`` without a name)."""
        found = next((a.name for a in self._agents() if a.run_cmd), None)
        if found is None:
            raise ValueError("no agent has a run_cmd to start a server with")
        return found

    async def status(self) -> list[ServerStatus]:
        return await self._servers.status(self._agents())

    async def start(self, name: str) -> StartResult:
        """Start the agent's server unless it answers already; the progress and a failure
        arrive as ``Server*`` events."""
        cfg = self.agent(name)
        before = {s.agent: s.state for s in await self._servers.status([cfg])}
        if before.get(cfg.name) in ("up", "running"):
            return "up"
        return "started" if await self._servers.ensure(cfg) else "failed"

    async def stop(self, name: str | None = None) -> list[str]:
        """Stop the named agent's recorded server, or every recorded one; the agents whose
        server was stopped."""
        names = [name] if name else [s.agent for s in await self.status() if s.pid]
        return [n for n in names if await self._servers.stop(n)]


@contextlib.asynccontextmanager
async def open_servers(
    config_path: str | Path | None, on_event: Callable[[ev.BusEvent], None]
) -> AsyncIterator[Servers]:
    """The configured agents' servers for a command that outlives no session: what it starts
    keeps running after it.  Raises ``ConfigError``."""
    from milk_tui.config.load import load_config
    from milk_tui.engine.server_on_demand import LocalServers

    config, _, _ = load_config(config_path)
    servers = LocalServers(data_dir(), on_event)
    try:
        yield Servers(servers, lambda: list(config.agents))
    finally:
        servers.forget_started()  # started for the user, who stops them with `server stop`
        await servers.aclose()
