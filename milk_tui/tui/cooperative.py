"""Agents as the TUI runs them: same events, but the event loop gets a turn every few ms.

A fast local server fills the socket buffer faster than a turn consumes it; the HTTP
client then hands over tens of kilobytes at once and parsing them never awaits anything
that blocks, so keys and paints would wait for the whole burst.  Print mode has no UI and
keeps the unwrapped agents (DESIGN §6 headless budget).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

YIELD_EVERY_S = 0.004
"""Longest stretch the stream may hold the loop: well under one 60 fps frame (16 ms), so a
key is handled within a few of these slices (budget: 50 ms worst key wait)."""


class CooperativeAgent:
    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def stream(self, request: Any) -> AsyncIterator[Any]:
        clock = time.perf_counter
        last = clock()
        async for item in self._inner.stream(request):
            yield item
            now = clock()
            if now - last > YIELD_EVERY_S:
                await asyncio.sleep(0)
                last = clock()


def make_cooperative(dispatcher: Any) -> None:
    for slot in (dispatcher.primary, dispatcher.escalation):
        if slot is not None and not isinstance(slot.agent, CooperativeAgent):
            slot.agent = CooperativeAgent(slot.agent)
