"""Agents as an interactive front end runs them: same events, but the event loop gets a turn
every few milliseconds.

A fast local server fills the socket buffer faster than a turn consumes it; the HTTP
client then hands over tens of kilobytes at once and parsing them never awaits anything
that blocks, so keys and paints would wait for the whole burst.  Headless runs keep the
unwrapped agents: nothing else waits on their loop.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from milk_tui.agents.base import Agent, AgentEvent, AgentRequest

if TYPE_CHECKING:
    from milk_tui.engine.dispatch import Dispatcher

YIELD_EVERY_S = 0.002
"""Longest stretch the stream may hold the loop: well under one 60 fps frame (16 ms), so a
key is handled within a few of these slices (budget: 50 ms worst key wait)."""


class CooperativeAgent:
    """Wraps an agent; only ``stream`` differs, other attributes are the inner agent's."""

    def __init__(self, inner: Agent) -> None:
        self._inner = inner
        self.name = inner.name
        self.model = inner.model

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def available(self) -> bool:
        return await self._inner.available()

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def stream(self, request: AgentRequest) -> AsyncIterator[AgentEvent]:
        clock = time.perf_counter
        last = clock()
        async for item in self._inner.stream(request):
            yield item
            now = clock()
            if now - last > YIELD_EVERY_S:
                await asyncio.sleep(0)
                last = clock()


def make_cooperative(dispatcher: Dispatcher) -> None:
    """Wrap both slots' agents once (calling it again changes nothing)."""
    for slot in (dispatcher.primary, dispatcher.escalation):
        if slot is not None and not isinstance(slot.agent, CooperativeAgent):
            slot.agent = CooperativeAgent(slot.agent)
