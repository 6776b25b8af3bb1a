"""Agent-as-tool: another configured agent answers one request for the primary.

A call of ``agent_<name>`` runs that agent once through its normal backend — stateless: no
session history, no tools of its own (the Claude CLI keeps its own, with permissions
skipped, as config/agent_tools.py requires) — and its answer is the tool result.  A target
that can run programs or change files on its own (the Claude CLI, aider, a subprocess
agent such as smolagents) is a tool with the ``run`` effect, asked about like a shell
command; only a plain chat agent is a ``read`` (``AGENT_TOOL_EFFECTS``).  Its
token usage is handed to ``on_usage``, which books it on the turn under the role
``<slot>:agent_<name>``.  A failing agent is an error result for the model, never the end
of the turn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from milk_tui.agents.base import (
    Agent,
    AgentError,
    AgentRequest,
    TextChunk,
    ToolEffect,
    ToolOutcome,
    ToolSpec,
    UsageEvent,
)
from milk_tui.agents.factory import build_agent
from milk_tui.agents.tools.box import Handler, LocalToolBox, Tool
from milk_tui.config.agent_tools import AgentToolEntry, claude_needs_skip, entries_for, tool_name
from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.model.tags import strip_tags

ONE_SHOT_PROMPT = (
    "You are {name}, asked one self-contained question by another AI agent ({caller}) "
    "working for the user in {cwd}. You see nothing of its conversation. Answer the "
    "request directly and completely in one reply."
)

UsageSink = Callable[[UsageEvent], None]

AGENT_TOOL_EFFECTS: dict[str, ToolEffect] = {
    "openai": "read",
    "bedrock": "read",
    "demo": "read",
    "claude-cli": "run",
    "aider-cli": "run",
    "subprocess": "run",
}
"""Per ``AgentConfig.kind``: what asking that agent does to the world.  An API agent asked
one-shot gets no tools, so it only answers; the others run programs in the folder."""


def agent_tool_effect(target: AgentConfig) -> ToolEffect:
    """An agent kind missing from the table is taken to run things."""
    return AGENT_TOOL_EFFECTS.get(target.kind, "run")


@dataclass(frozen=True)
class AgentTool:
    entry: AgentToolEntry
    target: AgentConfig
    spec: ToolSpec


def agent_tools(config: MilkConfig, caller: AgentConfig) -> list[AgentTool]:
    """The tools ``caller`` is offered; entries the config check rejects are left out."""
    tools: list[AgentTool] = []
    for e in entries_for(config, caller):
        target = config.find_agent(e.agent)
        if target is None or claude_needs_skip(e, target):
            continue
        name = tool_name(target.name)
        what = e.description or (
            f"Ask the {target.name} agent ({target.model or target.provider or 'model'}) "
            "one self-contained question and get its answer."
        )
        spec = ToolSpec(
            name,
            what + " It sees nothing of this conversation: put everything it needs in the request.",
            {
                "type": "object",
                "properties": {
                    "request": {"type": "string", "description": "the full, standalone request"}
                },
                "required": ["request"],
            },
            effect=agent_tool_effect(target),
        )
        tools.append(AgentTool(e, target, spec))
    return tools


class AgentToolBox(LocalToolBox):
    """One per turn.  ``live`` maps agent names (lower-case) to agents already running in
    a slot, reused as they are; any other target is built for the call and closed after."""

    def __init__(
        self,
        tools: list[AgentTool],
        *,
        config: MilkConfig,
        caller: str,
        cwd: str,
        on_usage: UsageSink,
        live: dict[str, Agent] | None = None,
    ) -> None:
        super().__init__(Tool(t.spec, self._handler(t.target)) for t in tools)
        self._config = config
        self._caller = caller
        self._cwd = cwd
        self._on_usage = on_usage
        self._live = live or {}

    def _handler(self, target: AgentConfig) -> Handler:
        async def handle(args: dict[str, Any]) -> ToolOutcome:
            request = str(args.get("request") or "").strip()
            if not request:
                return ToolOutcome(
                    "the request is empty: say what the agent should answer", is_error=True
                )
            return await self._ask(target, request)

        return handle

    async def _ask(self, target: AgentConfig, request: str) -> ToolOutcome:
        agent = self._live.get(target.name.lower())
        built = agent is None
        if agent is None:
            agent = build_agent(target, slot="primary", config=self._config)
        role = ONE_SHOT_PROMPT.format(name=target.name, caller=self._caller, cwd=self._cwd)
        # Each backend reads its own field: HTTP agents the system prompt, the Claude CLI
        # the appended one (a fresh session: no resume id).
        one_shot = AgentRequest(
            slot="primary",
            prompt=request,
            cwd=self._cwd,
            system_prompt=role,
            append_system_prompt=role,
        )
        text: list[str] = []
        try:
            async for item in agent.stream(one_shot):
                if isinstance(item, TextChunk):
                    text.append(item.text)
                elif isinstance(item, UsageEvent):
                    item.model = item.model or target.model or target.name
                    item.role_suffix = tool_name(target.name)
                    self._on_usage(item)
        except AgentError as e:
            return ToolOutcome(f"{target.name} failed: {e}", is_error=True)
        finally:
            if built:
                await agent.aclose()
        answer = strip_tags("".join(text)).strip()
        return ToolOutcome(answer or f"({target.name} gave no answer)")
