"""What a backend does for the tool loop: complete ONE round, in its own wire format.

A round is one model call: the conversation so far goes out, text and thinking stream back,
and the round ends with a ``RoundResult`` (the full text, the tool calls, usage, the finish
reason).  Everything between rounds (running tools, limits, stopping) is the loop's job, so
a new API (chat completions, Bedrock Converse, the Responses API) only implements this
protocol.  ``Conv`` is the backend's own conversation state (its message list, tool specs,
per-turn flags); the loop never looks inside it.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from milk_tui.agents.base import (
    AgentError,
    AgentRequest,
    TextChunk,
    ThinkingChunk,
    ToolCallEvent,
    ToolOutcome,
    ToolSpec,
    UsageEvent,
)

ToolCall = ToolCallEvent
"""A call the model asked for.  The loop shows the same record to the user as the event;
``arguments`` is the raw JSON text the model wrote, validated by the tool box only."""


@dataclass(slots=True)
class ToolRun:
    """One executed call and what came of it, in the order the model asked."""

    call: ToolCall
    outcome: ToolOutcome


@dataclass(slots=True)
class RoundResult:
    text: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str = ""
    usage: UsageEvent | None = None
    reasoning_signature: str = ""
    """Opaque proof some APIs attach to reasoning; needed to send that reasoning back."""


RoundEvent = TextChunk | ThinkingChunk | RoundResult
"""A round streams chunks as they arrive and ends with exactly one RoundResult."""

Conv = TypeVar("Conv")


class RoundBackend(Protocol[Conv]):
    def start_turn(self, request: AgentRequest, tools: list[ToolSpec]) -> Conv:
        """The conversation for this turn: system prompt, history, the user's prompt."""
        ...

    def complete_round(self, conv: Conv) -> AsyncGenerator[RoundEvent, None]:
        """One model call.  Raise AgentError on failure; cancellation must close the call."""
        ...

    def add_assistant_turn(self, conv: Conv, result: RoundResult) -> None:
        """Append the model's round (text, reasoning to replay, tool calls) to ``conv``."""
        ...

    def add_tool_results(self, conv: Conv, runs: list[ToolRun]) -> None:
        """Append the results of the calls just made, in call order."""
        ...

    def error(self, message: str) -> AgentError:
        """An AgentError naming this agent, with secrets masked."""
        ...
