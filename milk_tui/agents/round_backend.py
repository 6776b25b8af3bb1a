"""What a backend does for the tool loop: open ONE round, in its own wire format.

A round is one model call: the conversation so far goes out, and raw items come back (SSE
bytes, decoded event dicts).  The backend hands the loop the raw source and a pure parser
for it; the loop reads the source, feeds the parser, and passes the chunks on, so the
per-chunk path holds no generator of the backend's own.  When the source ends the parser
gives the ``RoundResult`` (the full text, the tool calls, usage, the finish reason).
Everything between rounds (running tools, limits, stopping) is the loop's job, so a new API
only implements this protocol.  ``Conv`` is the backend's own conversation state (its
message list, tool specs, per-turn flags); the loop never looks inside it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

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
    text_call_format: str = ""
    """Set when ``tool_calls`` were written as text (``agents/text_call_detect.py``): the
    model gets its results back as text too."""
    raw_text: str = ""
    """With ``text_call_format``: the reply as the model wrote it, markup included."""


Chunk = TextChunk | ThinkingChunk


class RoundParser(Protocol):
    """Pure: raw wire items in, chunks out; no I/O, so every case is unit-testable."""

    done: bool
    """The wire said the round is over; the loop stops reading."""

    def feed(self, item: Any) -> list[Chunk]: ...

    def close(self) -> list[Chunk]:
        """Flush what an unterminated last item left (the source has ended)."""
        ...

    def result(self) -> RoundResult:
        """The whole round; raises when the source ended before the round did."""
        ...


OpenRound = AbstractAsyncContextManager[tuple[AsyncIterator[Any], RoundParser]]
"""The raw source of one model call and its parser.  Leaving the context closes the call;
an exception inside it (transport, parse) leaves it as an AgentError naming the agent."""

Conv = TypeVar("Conv")


class RoundBackend(Protocol[Conv]):
    name: str
    """The agent's name: permission questions carry it."""

    def start_turn(self, request: AgentRequest, tools: list[ToolSpec]) -> Conv:
        """The conversation for this turn: system prompt, history, the user's prompt."""
        ...

    def open_round(self, conv: Conv) -> OpenRound:
        """Send the conversation; cancellation must close the call."""
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
