"""The one tool loop for every API backend, and the round protocol backends implement."""

from milk_tui.agents.loop.calls import BeforeTool, run_calls
from milk_tui.agents.loop.round import (
    Chunk,
    OpenRound,
    RoundBackend,
    RoundParser,
    RoundResult,
    ToolCall,
    ToolRun,
)
from milk_tui.agents.loop.tool_loop import LoopSettings, ToolLoop, trail_digest

__all__ = [
    "BeforeTool",
    "Chunk",
    "LoopSettings",
    "OpenRound",
    "RoundBackend",
    "RoundParser",
    "RoundResult",
    "ToolCall",
    "ToolLoop",
    "ToolRun",
    "run_calls",
    "trail_digest",
]
