"""``agent_tools``: configured agents offered to the primary as tools.

Each entry ``{agent, description, enabled}`` gives the primary a tool ``agent_<name>``
(``tool_name``) with one argument, ``request``; the engine runs that agent once per call,
stateless (engine/agent_tool.py).  Entries come from the top-level ``agent_tools`` and the
primary entry's own ``tools``: an entry there for the same agent replaces the global one,
a new agent is added (reads a Go milk config.json unchanged).  ``enabled`` absent means on.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from milk_tui.config.settings import AgentConfig, MilkConfig

TOOL_NAME_MAX = 64
"""OpenAI-compatible servers accept tool names of at most 64 of ``[a-zA-Z0-9_-]``."""


class AgentToolEntry(BaseModel):
    model_config = ConfigDict(extra="allow")
    agent: str
    description: str = ""
    enabled: bool | None = None

    @property
    def on(self) -> bool:
        return self.enabled is not False


def tool_name(agent: str) -> str:
    """``agent_`` and the agent's name lower-cased, every other character run as ``_``."""
    body = re.sub(r"[^a-z0-9_]+", "_", agent.lower()).strip("_") or "agent"
    return ("agent_" + body)[:TOOL_NAME_MAX]


def entries_for(config: MilkConfig, ac: AgentConfig | None) -> list[AgentToolEntry]:
    """The enabled entries offered to the agent ``ac`` (never ``ac`` itself)."""
    merged: dict[str, AgentToolEntry] = {e.agent.lower(): e for e in config.agent_tools}
    for e in ac.tools if ac is not None else []:
        merged[e.agent.lower()] = e
    own = ac.name.lower() if ac is not None else ""
    return [e for key, e in merged.items() if e.on and key != own]


def claude_needs_skip(entry: AgentToolEntry, target: AgentConfig) -> str:
    """Why this entry cannot run ("" when it can): the Claude CLI, run as another agent's
    tool, has no one to ask for permissions, so they must be skipped."""
    if target.kind == "claude-cli" and not target.dangerously_skip_permissions:
        return (
            f"agent_tools entry '{entry.agent}': the Claude CLI as a tool needs "
            f"dangerously_skip_permissions = true on agent '{target.name}' (no one can answer "
            "its permission questions inside another agent's tool call)"
        )
    return ""


def agent_tool_problems(config: MilkConfig) -> tuple[list[str], list[str]]:
    """(errors, warnings) of every enabled entry, global and per agent."""
    errors: list[str] = []
    warnings: list[str] = []
    scopes = [("agent_tools", config.agent_tools)] + [
        (f"agents '{a.name}' tools", a.tools) for a in config.agents
    ]
    for where, entries in scopes:
        for e in entries:
            if not e.on:
                continue
            target = config.find_agent(e.agent)
            if target is None:
                warnings.append(f"{where}: agent '{e.agent}' is not defined in agents[]; ignored")
            elif why := claude_needs_skip(e, target):
                errors.append(why)
    return errors, warnings
