"""Config entry → agent instance.  Provider SDKs are imported only when used (cold start)."""

from __future__ import annotations

from pathlib import Path

from milk_tui.agents.base import Agent, Slot
from milk_tui.agents.redact import config_secrets, register
from milk_tui.config.settings import AgentConfig, MilkConfig


def build_agent(
    ac: AgentConfig,
    *,
    slot: Slot,
    config: MilkConfig,
    other_name: str = "",
    debug_log: Path | None = None,
) -> Agent:
    register(*config_secrets(config))  # every configured key, used by this agent or not
    kind = ac.kind
    if kind == "demo":
        from milk_tui.agents.demo import DemoAgent

        return DemoAgent(ac, slot=slot, other_name=other_name)
    if kind == "claude-cli":
        from milk_tui.agents.claude_cli import ClaudeCliAgent
        from milk_tui.config.mcp import assigned_names, servers_for_agent

        servers = servers_for_agent(config.mcp_servers, assigned_names(config, ac))
        return ClaudeCliAgent(ac, debug_log=debug_log, mcp_servers=servers)
    if kind == "subprocess":
        from milk_tui.agents.subprocess_agent import SubprocessAgent

        return SubprocessAgent(ac, debug_log=debug_log)
    if kind == "aider-cli":
        from milk_tui.agents.aider_cli import AiderCliAgent

        return AiderCliAgent(ac, debug_log=debug_log)
    # Every API backend runs the same tool loop with the same limits.
    max_tool_iterations = config.resolve_max_tool_iterations(ac)
    tool_timeout = config.resolve_tool_timeout(ac)
    if kind == "bedrock":
        from milk_tui.agents.bedrock import BedrockAgent

        return BedrockAgent(
            ac,
            max_tool_iterations=max_tool_iterations,
            tool_timeout=tool_timeout,
            debug_log=debug_log,
        )
    from milk_tui.agents.openai_compat import OpenAICompatAgent

    http_agent = OpenAICompatAgent
    if ac.api_format == "responses":
        from milk_tui.agents.openai_responses import OpenAIResponsesAgent

        http_agent = OpenAIResponsesAgent
    return http_agent(
        ac,
        slot=slot,
        max_tool_iterations=max_tool_iterations,
        tool_timeout=tool_timeout,
        debug_log=debug_log,
    )
