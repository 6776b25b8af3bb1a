"""The tool loop every API backend runs through: rounds until the model answers.

Per turn: complete a round; no tool calls means the answer is in (an empty answer is
replaced by the model's reasoning, or by a digest of what the tools did); otherwise run the
calls and go again.  The loop stops early when a round only repeats calls already made this
turn (small models loop on one call) or a tool asks to escalate, and fails when the model
is still calling tools after ``max_iterations`` rounds.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass
from typing import Generic

from milk_tui.agents.base import (
    AgentEvent,
    AgentRequest,
    Finished,
    TextChunk,
    ToolResultEvent,
    UsageEvent,
)
from milk_tui.agents.round_backend import Conv, RoundBackend, ToolRun
from milk_tui.agents.tool_calls import BeforeTool, run_calls
from milk_tui.agents.tool_permission import permission_hook
from milk_tui.config.settings import DEFAULT_MAX_TOOL_ITERATIONS

TRAIL_ARGS_CHARS = 200
TRAIL_RESULT_CHARS = 300
"""Per-call limits of the tool-trail digest: enough to recognise a call, not to flood."""
TRAIL_HEADER = "[the model ended its turn without a summary; tool activity:]"


@dataclass(frozen=True, slots=True)
class LoopSettings:
    max_iterations: int = DEFAULT_MAX_TOOL_ITERATIONS
    """Model calls per turn; a turn still calling tools after the last one is an error."""
    tool_timeout: float | None = 120.0
    """Seconds per tool call; None or 0 waits for ever."""
    before_tool: BeforeTool | None = None
    """The check run before each tool (see ``tool_calls.BeforeTool``); when None, the
    request's permission check (``tool_permission.permission_hook``) is used."""


class ToolLoop(Generic[Conv]):
    """One turn of one agent.  ``usage`` holds the turn's summed usage once it is done."""

    def __init__(self, backend: RoundBackend[Conv], settings: LoopSettings) -> None:
        self.backend = backend
        self.settings = settings
        self.usage: UsageEvent | None = None

    async def run(self, request: AgentRequest) -> AsyncGenerator[AgentEvent, None]:
        backend = self.backend
        limit = self.settings.max_iterations
        if limit <= 0:
            limit = DEFAULT_MAX_TOOL_ITERATIONS
        conv = backend.start_turn(request, request.tools.specs() if request.tools else [])
        executed: set[tuple[str, str]] = set()
        before_tool = self.settings.before_tool
        if before_tool is None and request.ask_permission is not None:
            before_tool = permission_hook(backend.name, request)
        trail: list[ToolRun] = []
        for _ in range(limit):
            # The per-chunk hot path: the source's own iteration, one pure parse, one yield.
            async with backend.open_round(conv) as (source, parser):
                feed = parser.feed
                async for item in source:
                    for ev in feed(item):
                        yield ev
                    if parser.done:
                        break
                for ev in parser.close():
                    yield ev
                result = parser.result()
            if result.usage is not None:
                self._add_usage(result.usage)
                yield result.usage
            calls = result.tool_calls
            if not calls:
                if not result.text and result.reasoning.strip():
                    # A reasoning-only answer is the answer; the dispatcher then drops the
                    # separate thinking so it is not stored twice.
                    yield TextChunk(result.reasoning)
                    yield Finished(
                        stop_reason=result.finish_reason or "stop", reasoning_promoted=True
                    )
                    return
                if not result.text and trail:
                    yield TextChunk(trail_digest(trail))
                yield Finished(stop_reason=result.finish_reason or "stop")
                return
            keys = [(c.name, c.arguments) for c in calls]
            if all(k in executed for k in keys):
                # Only calls already made this turn: the model is looping.  End the turn
                # normally with what we have, not with an error.
                if not result.text and trail:
                    yield TextChunk(trail_digest(trail))
                yield Finished(stop_reason="repeated_tool_calls")
                return
            executed.update(keys)
            for c in calls:
                yield c
            backend.add_assistant_turn(conv, result)
            runs: list[ToolRun] = []
            results = run_calls(
                request.tools,
                calls,
                timeout=self.settings.tool_timeout,
                before_tool=before_tool,
            )
            async with aclosing(results):
                async for run in results:
                    o = run.outcome
                    yield ToolResultEvent(run.call.call_id, run.call.name, o.text(), o.is_error)
                    runs.append(run)
                    if o.escalate_reason:
                        yield Finished(stop_reason="escalate", escalation_reason=o.escalate_reason)
                        return
            trail += runs
            backend.add_tool_results(conv, runs)
        raise backend.error(f"exceeded maximum tool iterations ({limit})")

    def _add_usage(self, u: UsageEvent) -> None:
        t = self.usage
        if t is None:
            self.usage = UsageEvent(
                u.model, u.prompt_tokens, u.completion_tokens, u.cache_read, u.cache_creation
            )
            self.usage.cost_usd = u.cost_usd
            return
        t.prompt_tokens += u.prompt_tokens
        t.completion_tokens += u.completion_tokens
        t.cache_read += u.cache_read
        t.cache_creation += u.cache_creation
        t.cost_usd += u.cost_usd


def trail_digest(trail: list[ToolRun]) -> str:
    """What the tools did, shown when a turn ends without an answer instead of nothing."""
    lines = [TRAIL_HEADER]
    for run in trail:
        lines.append(f"- {run.call.name}({_cut(run.call.arguments, TRAIL_ARGS_CHARS)})")
        lines.append(f"  → {_cut(run.outcome.content, TRAIL_RESULT_CHARS)}")
    return "\n".join(lines)


def _cut(s: str, n: int) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[:n] + "…"
