"""Running one round's tool calls: concurrently, each with a timeout, results in call order.

``before_tool`` is the one place a check runs before any tool does (permissions plug in
there): it sees each call in order and either lets it run (``None``) or supplies the
outcome to report instead; the call then runs in the context the check ran in.  A tool that raises or times out becomes an error result for
the model, never the end of the turn.  Leaving early (escalation, cancellation, the
consumer closing the stream) cancels every tool still running.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncGenerator, Awaitable, Callable

from milk_tui.agents.base import ToolBox, ToolOutcome
from milk_tui.agents.round_backend import ToolCall, ToolRun

BeforeTool = Callable[[ToolCall], Awaitable[ToolOutcome | None]]
"""Called before each tool runs: ``None`` runs it, an outcome replaces it (e.g. denied)."""


async def run_calls(
    tools: ToolBox | None,
    calls: list[ToolCall],
    *,
    timeout: float | None,
    before_tool: BeforeTool | None = None,
) -> AsyncGenerator[ToolRun, None]:
    """Yield one ToolRun per call, in call order, each as soon as it and those before it
    are done."""
    loop = asyncio.get_running_loop()
    decided: list[ToolOutcome | None] = [None] * len(calls)
    # Each call's check and its run share one context, so what the check pins for the
    # tool (the paths it decided on: tools/paths.pin) is what that tool sees.
    contexts = [contextvars.copy_context() for _ in calls]
    if before_tool is not None:
        # In call order and one at a time, so questions to the user come one by one.
        for i, call in enumerate(calls):
            decided[i] = await loop.create_task(_check(before_tool, call), context=contexts[i])
    tasks = [
        None if d is not None else loop.create_task(_run_one(tools, c, timeout), context=ctx)
        for c, d, ctx in zip(calls, decided, contexts, strict=True)
    ]
    try:
        for call, d, task in zip(calls, decided, tasks, strict=True):
            outcome = d if task is None else await task
            assert outcome is not None
            yield ToolRun(call, outcome)
    finally:
        running = [t for t in tasks if t is not None and not t.done()]
        for t in running:
            t.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)


async def _check(before_tool: BeforeTool, call: ToolCall) -> ToolOutcome | None:
    return await before_tool(call)


async def _run_one(tools: ToolBox | None, call: ToolCall, timeout: float | None) -> ToolOutcome:
    if tools is None:
        return ToolOutcome(f"tool {call.name!r} is not available", is_error=True)
    try:
        if timeout:
            return await asyncio.wait_for(tools.call(call.name, call.arguments), timeout)
        return await tools.call(call.name, call.arguments)
    except TimeoutError:
        return ToolOutcome(f'tool "{call.name}" timed out after {timeout:g}s', is_error=True)
    except Exception as e:  # a broken tool is reported to the model, not fatal
        return ToolOutcome(f"tool {call.name!r} failed: {type(e).__name__}: {e}", is_error=True)
