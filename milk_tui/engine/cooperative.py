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
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from milk_tui.agents.base import Agent, AgentEvent, AgentRequest, TextChunk, ThinkingChunk

if TYPE_CHECKING:
    from milk_tui.engine.dispatch import Dispatcher

YIELD_EVERY_S = 0.002
"""Longest stretch the stream may hold the loop: well under one 60 fps frame (16 ms), so a
key is handled within a few of these slices (budget: 50 ms worst key wait)."""
FIRST_TEXT_WAIT_S = 0.03
"""The longest a stream waits for its front end to show a reply's first text (two 60 fps
frames): a front end that never says so (no conversation on screen) delays a reply by no
more than this."""


class StreamPacing:
    """What an interactive front end tells the agents' streams (one per runtime)."""

    def __init__(self) -> None:
        self.first_text_shown: Callable[[], Awaitable[None]] | None = None
        """Set by a front end: returns once the text just published (a reply's first) is
        on screen.  The stream reads on only then: a reply that arrives whole would
        otherwise be parsed and published in 2 ms slices between the first text's
        delivery and its paint, each one delaying that paint (docs/performance.md,
        "First token, round 6")."""

    async def show_first_text(self) -> None:
        shown = self.first_text_shown
        if shown is not None:
            with suppress(TimeoutError):
                await asyncio.wait_for(shown(), FIRST_TEXT_WAIT_S)


class CooperativeAgent:
    """Wraps an agent; only ``stream`` differs, other attributes are the inner agent's."""

    def __init__(self, inner: Agent, pacing: StreamPacing) -> None:
        self._inner = inner
        self.pacing = pacing
        self._reads_paced = hasattr(inner, "read_slice_s")
        """An HTTP agent reads its body in a task of its own (agents/read_ahead.py), which
        then yields to the loop every ``YIELD_EVERY_S``: this stream need not yield too
        (each yield here would pause that task and cost the stream two more iterations
        of a loop that is busy painting)."""
        if self._reads_paced:
            setattr(inner, "read_slice_s", YIELD_EVERY_S)  # noqa: B010  # not on the protocol
        self.name = inner.name
        self.model = inner.model

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    @property
    def inner(self) -> Agent:
        return self._inner

    async def available(self) -> bool:
        return await self._inner.available()

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def stream(self, request: AgentRequest) -> AsyncIterator[AgentEvent]:
        clock = time.perf_counter
        last = clock()
        first = request.shown_live  # nothing paints a router's or a tool agent's text
        async for item in self._inner.stream(request):
            yield item
            if first and isinstance(item, (TextChunk, ThinkingChunk)) and item.text:
                first = False
                await self.pacing.show_first_text()
                last = clock()
                continue
            now = clock()
            if now - last > YIELD_EVERY_S and not self._reads_paced:
                await asyncio.sleep(0)
                last = clock()


def make_cooperative(dispatcher: Dispatcher, pacing: StreamPacing) -> None:
    """Wrap both slots' agents once (calling it again changes nothing)."""
    for slot in (dispatcher.primary, dispatcher.escalation):
        if slot is not None and not isinstance(slot.agent, CooperativeAgent):
            slot.agent = CooperativeAgent(slot.agent, pacing)
