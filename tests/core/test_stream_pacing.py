"""A cooperative stream of a turn's reply reads on after its first text only once its
front end has shown it (engine/cooperative.py), and never waits longer than
``FIRST_TEXT_WAIT_S``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from milk_tui.agents.base import AgentEvent, AgentRequest, Finished, TextChunk, ThinkingChunk
from milk_tui.engine import cooperative
from milk_tui.engine.cooperative import CooperativeAgent, StreamPacing
from milk_tui.testing.waits import WAIT_S, until


class _Burst:
    """An agent whose whole reply is there at once, recording when each item is read."""

    name = model = "burst"

    def __init__(self, items: list[AgentEvent]) -> None:
        self.items = items
        self.read: list[AgentEvent] = []

    async def stream(self, request: AgentRequest) -> AsyncIterator[AgentEvent]:
        for item in self.items:
            self.read.append(item)
            yield item


async def _drain(agent: CooperativeAgent, shown_live: bool = True) -> list[AgentEvent]:
    request = AgentRequest(slot="primary", prompt="hi", cwd=".", shown_live=shown_live)
    return [e async for e in agent.stream(request)]


async def test_the_rest_is_read_only_once_the_first_text_is_shown() -> None:
    inner = _Burst([TextChunk(""), TextChunk("first"), TextChunk("second"), Finished()])
    pacing = StreamPacing()
    shown = asyncio.Event()
    asked: list[int] = []

    async def first_text_shown() -> None:
        asked.append(len(inner.read))
        await shown.wait()

    pacing.first_text_shown = first_text_shown
    task = asyncio.create_task(_drain(CooperativeAgent(inner, pacing)))  # type: ignore[arg-type]  # a duck-typed Agent
    await until(None, lambda: asked, what="the stream to ask for the first text's paint")
    assert asked == [2]  # after "first" (an empty chunk shows nothing), once
    assert len(inner.read) == 2  # "second" is not read yet
    shown.set()
    events = await task
    assert [getattr(e, "text", None) for e in events] == ["", "first", "second", None]
    assert asked == [2]


async def test_thinking_is_a_first_text_too() -> None:
    inner = _Burst([ThinkingChunk("hmm"), TextChunk("answer")])
    pacing = StreamPacing()
    asked: list[int] = []

    async def first_text_shown() -> None:
        asked.append(len(inner.read))

    pacing.first_text_shown = first_text_shown
    await _drain(CooperativeAgent(inner, pacing))  # type: ignore[arg-type]  # a duck-typed Agent
    assert asked == [1]


async def test_a_front_end_that_never_answers_delays_the_reply_by_at_most_the_wait(
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    """The wait for a paint that never comes is given up (not measured here: how long it
    lasts is ``FIRST_TEXT_WAIT_S``; without the bound this stream would never end)."""
    monkeypatch.setattr(cooperative, "FIRST_TEXT_WAIT_S", 0.05)
    pacing = StreamPacing()
    inner = _Burst([TextChunk("a"), TextChunk("b")])
    gave_up_after: list[int] = []

    async def never() -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            gave_up_after.append(len(inner.read))
            raise

    pacing.first_text_shown = never
    events = await asyncio.wait_for(_drain(CooperativeAgent(inner, pacing)), WAIT_S)  # type: ignore[arg-type]  # a duck-typed Agent
    assert [e.text for e in events] == ["a", "b"]  # type: ignore[union-attr]  # TextChunks only
    assert gave_up_after == [1]  # it waited after "a", gave up, then read "b"


async def test_a_stream_nobody_shows_never_waits() -> None:
    """The router's classifier and an agent called as a tool read text nothing paints."""
    pacing = StreamPacing()
    asked: list[int] = []

    async def never() -> None:
        asked.append(1)
        await asyncio.Event().wait()

    pacing.first_text_shown = never
    inner = _Burst([TextChunk("a"), TextChunk("b")])
    events = await _drain(CooperativeAgent(inner, pacing), shown_live=False)  # type: ignore[arg-type]  # a duck-typed Agent
    assert len(events) == 2 and asked == []


async def test_without_a_front_end_nothing_waits() -> None:
    inner = _Burst([TextChunk("a"), TextChunk("b")])
    events = await _drain(CooperativeAgent(inner, StreamPacing()))  # type: ignore[arg-type]  # a duck-typed Agent
    assert len(events) == 2
