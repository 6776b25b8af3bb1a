"""The configured MCP servers of one run: started together in the background, looked up
by name, turned into each agent's tool box, listed for ``/mcp`` and ``milk-tui mcp``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from milk_tui.agents.mcp.connection import McpConnection, State, log_name
from milk_tui.agents.mcp.limits import total_notice
from milk_tui.agents.mcp.toolbox import McpToolBox
from milk_tui.agents.redact import Redactor
from milk_tui.config.mcp import McpServerConfig, usable


def _quiet_sdk_logging(log_dir: Path) -> None:
    """The SDK logs a server's bad output with tracebacks; they go to a file, never to the
    terminal the TUI draws on."""
    logger = logging.getLogger("mcp")
    if any(getattr(h, "_milk", False) for h in logger.handlers):
        return
    log_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = log_dir / "sdk.log"
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))  # private from birth
    handler = logging.FileHandler(path, encoding="utf-8")
    handler._milk = True  # type: ignore[attr-defined]  # marks ours, so it is added once
    logger.addHandler(handler)
    logger.propagate = False


@dataclass(frozen=True, slots=True)
class ServerStatus:
    name: str
    transport: str
    state: State
    tools: tuple[str, ...]
    """The server's own tool names (ready servers only)."""
    error: str
    log_file: str


class McpManager:
    def __init__(
        self,
        servers: Sequence[McpServerConfig],
        *,
        log_dir: Path,
        cwd: str,
        on_warning: Callable[[str], None] = lambda _: None,
    ) -> None:
        self.redact = Redactor()
        self.on_warning = on_warning
        self._log_dir = log_dir
        self._cwd = cwd
        self._conns: dict[str, McpConnection] = {}
        for cfg in usable(list(servers)):
            self._conns[cfg.name.lower()] = self._connection(cfg)
        self._started = False
        self._total_said: set[str] = set()
        """The total-bound notices already said (the agents' boxes may differ)."""
        self.open_browser = True
        if self._conns:
            _quiet_sdk_logging(log_dir)

    def __bool__(self) -> bool:
        return bool(self._conns)

    @property
    def names(self) -> list[str]:
        return [c.name for c in self._conns.values()]

    def get(self, name: str) -> McpConnection | None:
        return self._conns.get(name.strip().lower())

    def start(self) -> None:
        """Start every enabled server in the background (once; needs a running loop)."""
        if self._started or not self._conns:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop yet: the first turn or the UI starts them
        self._started = True
        for c in self._conns.values():
            c.start()

    async def wait_settled(self, timeout: float | None = None) -> None:
        """Until every enabled server has finished its first start attempt; each attempt
        ends by its own ``connect_timeout`` (counted from when it began, after the SDK's
        imports), and ``timeout`` bounds the whole wait: a server still starting then (a
        ``connect_timeout`` longer than it) is named in one line, and the caller goes on."""
        self.start()
        waits = [c.wait_settled(None) for c in self._conns.values()]
        try:
            await asyncio.wait_for(asyncio.gather(*waits), timeout)
        except TimeoutError:
            for c in self._conns.values():
                if c.state == "starting":
                    self.on_warning(
                        f"mcp server '{c.name}' has not started within {timeout:g}s; "
                        "going on without its tools"
                    )

    async def aclose(self) -> None:
        await asyncio.gather(*(c.stop() for c in self._conns.values()))
        self._started = False

    def statuses(self) -> list[ServerStatus]:
        return [
            ServerStatus(
                name=c.name,
                transport=c.transport,
                state=c.state,
                tools=tuple(t.name for t in c.tools) if c.state == "ready" else (),
                error=c.error,
                log_file=str(c.log_file),
            )
            for c in self._conns.values()
        ]

    def set_enabled(self, name: str, enabled: bool) -> bool:
        """For this run only; False when no such server."""
        c = self.get(name)
        if c is None:
            return False
        c.cfg = c.cfg.model_copy(update={"enabled": enabled})
        if enabled:
            c.state = "starting"
            c.start()
        else:
            asyncio.get_running_loop().create_task(self._disable(c))
        return True

    async def _disable(self, c: McpConnection) -> None:
        await c.stop()
        c.tools, c.state, c.error = [], "disabled", ""

    def _open_url(self, url: str) -> None:
        """Where the user signs in: said on the bus (a remote terminal has no browser here),
        and opened in the local browser when there is one."""
        import webbrowser

        self.on_warning(f"open this page to authorize an MCP server: {url}")
        if self.open_browser:
            with contextlib.suppress(Exception):
                webbrowser.open(url)

    def authenticate(self, name: str) -> McpConnection | None:
        """Connect again now, signing in (OAuth) when the server needs it."""
        c = self.get(name)
        if c is None or not c.cfg.enabled:
            return None
        c.authenticate()
        return c

    def reconnect(self, name: str) -> bool:
        c = self.get(name)
        if c is None or not c.cfg.enabled:
            return False
        c.reconnect()
        return True

    def _connection(self, cfg: McpServerConfig) -> McpConnection:
        log_dir = self._log_dir
        return McpConnection(
            cfg,
            log_file=log_dir / log_name(cfg.name),
            cwd=self._cwd,
            on_warning=lambda m: self.on_warning(m),
            redact=self.redact,
            token_file=log_dir / "auth" / log_name(cfg.name).replace(".log", ".json"),
            open_url=self._open_url,
        )

    async def sync(self, servers: Sequence[McpServerConfig]) -> dict[str, str]:
        """Apply a reloaded config: a new server starts, a changed one restarts with its new
        entry, a removed one stops.  Returns ``{name: "added"|"changed"|"removed"}``."""
        wanted = {c.name.lower(): c for c in usable(list(servers))}
        done: dict[str, str] = {}
        for key in [k for k in self._conns if k not in wanted]:
            old = self._conns.pop(key)
            await old.stop()
            done[old.name] = "removed"
        for key, cfg in wanted.items():
            old_conn = self._conns.get(key)
            if old_conn is not None and old_conn.cfg == cfg:
                continue
            if old_conn is not None:
                await old_conn.stop()
            if not self._conns and not self._started:
                _quiet_sdk_logging(self._log_dir)
            conn = self._conns[key] = self._connection(cfg)
            done[cfg.name] = "changed" if old_conn is not None else "added"
            self._started = True
            conn.start()  # a disabled entry just shows as disabled
        return done

    def toolbox(self, assigned: list[str] | None = None) -> McpToolBox:
        """The tools of the ready servers an agent gets (``assigned`` names; None: all)."""
        self.start()
        wanted = {n.strip().lower() for n in assigned} if assigned is not None else None
        conns = [c for k, c in self._conns.items() if wanted is None or k in wanted]
        box = McpToolBox([c for c in conns if c.state == "ready"], self.redact)
        notice = total_notice(box.dropped) if box.dropped else ""
        if notice and notice not in self._total_said:  # once per cut, not every turn
            self._total_said.add(notice)
            self.on_warning(notice)
        return box
