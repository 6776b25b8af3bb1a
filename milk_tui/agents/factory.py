"""Config entry → agent instance.  Provider SDKs are imported only when used (cold start)."""

from __future__ import annotations

from pathlib import Path

from ..config.settings import AgentConfig, MilkConfig
from .base import Agent


def build_agent(
    ac: AgentConfig,
    *,
    slot: str,
    config: MilkConfig,
    other_name: str = "",
    debug_log: Path | None = None,
) -> Agent:
    kind = ac.kind
    if kind == "demo":
        from .demo import DemoAgent

        return DemoAgent(ac, slot=slot, other_name=other_name)
    if kind == "claude-cli":
        from .claude_cli import ClaudeCliAgent

        return ClaudeCliAgent(ac, debug_log=debug_log)
    if kind == "bedrock":
        from .bedrock import BedrockAgent

        return BedrockAgent(ac, debug_log=debug_log)
    from .openai_compat import OpenAICompatAgent

    return OpenAICompatAgent(
        ac,
        slot=slot,
        max_tool_iterations=config.resolve_max_tool_iterations(ac),
        tool_timeout=config.resolve_tool_timeout(ac),
        debug_log=debug_log,
    )
