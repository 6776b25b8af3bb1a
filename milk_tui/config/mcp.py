"""``mcp_servers``: the MCP servers whose tools the agents get (docs/interfaces.md, "MCP").

A Go milk config's entries load unchanged: ``transport`` is ``stdio`` or ``http`` (the
names the MCP spec and other clients use — ``streamable-http``, ``streamableHttp`` — mean
``http``; ``sse`` is the old HTTP+SSE transport), ``timeout`` / ``connect_timeout`` are
seconds or a Go duration string (``"30s"``, ``"1m"``).  An agent's ``mcp_servers`` (names)
picks which servers it gets (``assigned_names``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

if TYPE_CHECKING:
    from milk_tui.config.settings import AgentConfig, MilkConfig

McpTransport = Literal["stdio", "http", "sse"]
McpAuth = Literal["none", "bearer", "token_cmd", "oauth"]

DEFAULT_CALL_TIMEOUT_S = 120.0
DEFAULT_CONNECT_TIMEOUT_S = 30.0

_TRANSPORT_NAMES: dict[str, McpTransport] = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamable_http": "http",
    "streamablehttp": "http",
    "sse": "sse",
}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$")
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}


def parse_duration(v: Any) -> float:
    """Seconds from a number or a Go-style duration (``"1.5s"``, ``"500ms"``); 0 = default."""
    if v is None or v == "":
        return 0.0
    if isinstance(v, int | float):
        return float(v)
    m = _DURATION.match(str(v))
    if not m:
        raise ValueError(f"not a duration: {v!r} (use seconds, or e.g. '30s', '2m')")
    return float(m.group(1)) * _UNIT_S[m.group(2)]


class McpServerConfig(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str
    transport: McpTransport = "stdio"
    url: str = ""
    command: str = ""
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    auth: McpAuth = "none"
    api_key: str = Field(default="", repr=False)
    token_cmd: str = ""
    timeout: float = 0.0
    """Seconds one tool call may take (0 → 120)."""
    connect_timeout: float = 0.0
    """Seconds to start and initialize the server (0 → 30)."""
    enabled: bool = True

    @field_validator("transport", mode="before")
    @classmethod
    def _transport(cls, v: Any) -> Any:
        key = str(v or "").strip().lower()
        if not key:
            return "stdio"
        if key not in _TRANSPORT_NAMES:
            raise ValueError("transport must be stdio or http (streamable HTTP), or sse")
        return _TRANSPORT_NAMES[key]

    @field_validator("auth", mode="before")
    @classmethod
    def _auth(cls, v: Any) -> Any:
        return str(v or "none").strip().lower()

    @field_validator("timeout", "connect_timeout", mode="before")
    @classmethod
    def _duration(cls, v: Any) -> float:
        return parse_duration(v)

    @field_validator("enabled", mode="before")
    @classmethod
    def _enabled(cls, v: Any) -> Any:
        return True if v is None else v  # a Go config writes null for "default on"

    def model_post_init(self, _context: Any) -> None:
        if self.transport == "stdio" and not self.command and self.url:
            self.transport = "http"  # an entry with only a url is an HTTP server

    @property
    def call_timeout(self) -> float:
        return self.timeout if self.timeout > 0 else DEFAULT_CALL_TIMEOUT_S

    @property
    def start_timeout(self) -> float:
        return self.connect_timeout if self.connect_timeout > 0 else DEFAULT_CONNECT_TIMEOUT_S

    @property
    def is_http(self) -> bool:
        return self.transport in ("http", "sse")


def config_warnings(servers: list[McpServerConfig], agent_refs: dict[str, list[str]]) -> list[str]:
    """One line per entry that cannot work (missing url/command, duplicate name) and per
    agent naming a server that is not configured."""
    out: list[str] = []
    seen: set[str] = set()
    for s in servers:
        key = s.name.strip().lower()
        if not key:
            out.append("mcp_servers: an entry has no name; it is ignored")
            continue
        if key in seen:
            out.append(f"mcp server '{s.name}': duplicate name; the first entry is used")
        seen.add(key)
        if s.is_http and not s.url:
            out.append(f"mcp server '{s.name}': transport {s.transport} needs a url")
        if s.transport == "stdio" and not s.command:
            out.append(f"mcp server '{s.name}': transport stdio needs a command")
    for agent, names in agent_refs.items():
        for n in names:
            if n.strip().lower() not in seen:
                out.append(f"agent '{agent}': mcp_servers names unknown server '{n}'")
    return out


def usable(servers: list[McpServerConfig]) -> list[McpServerConfig]:
    """Named, first of each name, with what its transport needs (``config_warnings`` says
    why the others are left out)."""
    out: dict[str, McpServerConfig] = {}
    for s in servers:
        key = s.name.strip().lower()
        if not key or key in out:
            continue
        if (s.is_http and not s.url) or (s.transport == "stdio" and not s.command):
            continue
        out[key] = s
    return list(out.values())


def servers_for_agent(
    servers: list[McpServerConfig], assigned: list[str] | None
) -> list[McpServerConfig]:
    """The enabled servers an agent gets: those ``assigned`` names (None: all of them)."""
    ok = [s for s in usable(servers) if s.enabled]
    if assigned is None:
        return ok
    wanted = {n.strip().lower() for n in assigned}
    return [s for s in ok if s.name.strip().lower() in wanted]


def _naming(config: MilkConfig) -> list[AgentConfig]:
    return [a for a in config.agents if a.mcp_servers is not None]


def assigned_names(config: MilkConfig, agent: AgentConfig) -> list[str] | None:
    """The servers ``agent`` gets by name; None: every enabled one.  As in Go, once any agent
    of the config names servers, an agent that names none gets none.  A config in which no
    agent names any gives each agent every server (ours: servers listed are meant to be used)."""
    if agent.mcp_servers is not None:
        return agent.mcp_servers
    return [] if _naming(config) else None


def servers_to_start(config: MilkConfig) -> list[McpServerConfig]:
    """The servers to connect: those some agent names (as in Go, a server nobody names is
    never started), or all when no agent names any."""
    naming = _naming(config)
    if not naming:
        return list(config.mcp_servers)
    wanted = {n.strip().lower() for a in naming for n in a.mcp_servers or []}
    return [s for s in config.mcp_servers if s.name.strip().lower() in wanted]
