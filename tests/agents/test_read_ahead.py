"""The body read ahead in a task (agents/read_ahead.py): a piece is what had arrived, no byte
waits for a later one, nothing is read while the consumer is away, an error comes after the
bytes before it, leaving early stops the reading — and, through the agent, a round that saw
``[DONE]`` reads the body's end, so the next turn reuses the connection."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from milk_tui.agents.base import AgentRequest, TextChunk
from milk_tui.agents.openai_compat import OpenAICompatAgent
from milk_tui.agents.read_ahead import read_ahead
from milk_tui.config.settings import AgentConfig
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply

DEADLINE_S = 10.0
"""For a wait that must end: a loaded machine is slower, never wrong."""


class Source:
    """Bytes as a socket delivers them: ``ready`` ones at once, then a wait on ``gate``."""

    def __init__(self, ready: list[bytes], later: list[bytes]) -> None:
        self.ready, self.later = ready, later
        self.gate: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.pulled = 0
        self.closed = False

    async def items(self) -> AsyncIterator[bytes]:
        try:
            for b in self.ready:
                self.pulled += 1
                yield b
            await self.gate
            for b in self.later:
                self.pulled += 1
                yield b
        finally:
            self.closed = True


async def test_a_piece_is_what_had_arrived_and_waits_for_nothing() -> None:
    src = Source([b"a", b"b", b"c"], [b"d", b"e"])
    ahead = read_ahead(src.items())
    # The gate opens only after the first piece is in: a reader that waited for more
    # bytes would never hand it over.
    first = await asyncio.wait_for(anext(ahead), DEADLINE_S)
    assert first == b"abc"
    src.gate.set_result(None)
    assert [p async for p in ahead] == [b"de"]


async def test_nothing_is_read_while_the_consumer_is_away() -> None:
    src = Source([b"a"], [b"b", b"c", b"d"])
    ahead = read_ahead(src.items())
    assert await asyncio.wait_for(anext(ahead), DEADLINE_S) == b"a"
    src.gate.set_result(None)  # the rest could be read at once, but no one asks
    for _ in range(20):
        await asyncio.sleep(0)
    assert src.pulled <= 2
    assert b"".join([p async for p in ahead]) == b"bcd"


async def test_an_error_comes_after_the_bytes_before_it() -> None:
    async def failing() -> AsyncIterator[bytes]:
        yield b"x"
        yield b"y"
        raise ConnectionResetError("peer went away")

    got = []
    with pytest.raises(ConnectionResetError, match="peer went away"):
        async for piece in read_ahead(failing()):
            got.append(piece)
    assert b"".join(got) == b"xy"


async def test_leaving_early_stops_the_reading() -> None:
    src = Source([b"a"], [b"never"])
    ahead = read_ahead(src.items())
    assert await anext(ahead) == b"a"
    closing = asyncio.ensure_future(ahead.aclose())
    done, _ = await asyncio.wait({closing}, timeout=DEADLINE_S)  # (wait cancels nothing)
    assert done, "closing the reader did not end: its task still waits for bytes"
    assert src.closed and src.pulled == 1  # the task was stopped in its wait


async def test_the_reader_lets_the_loop_run_within_its_slice() -> None:
    """A burst that is all there at once: with a slice, a timer that fell due while the task
    read runs after the task's first slice; without one, once the burst is read."""
    ran_at: list[int] = []
    pulled = [0]

    async def burst() -> AsyncIterator[bytes]:
        for _ in range(200):
            pulled[0] += 1
            if pulled[0] == 1:  # a timer falls due once the burst is on
                asyncio.get_running_loop().call_later(0, lambda: ran_at.append(pulled[0]))
            time.sleep(0.0002)  # work per item that holds the loop
            yield b"."

    for slice_s in (0.001, None):
        ran_at.clear()
        pulled[0] = 0
        total = b"".join([p async for p in read_ahead(burst(), slice_s)])
        assert total == b"." * 200
        if slice_s is None:
            for _ in range(3):  # the timer is due: it runs in the next loop iteration
                await asyncio.sleep(0)
            assert ran_at == [200]
        else:
            # After the task's first slice (its clock is read every 16 items), before a
            # second one: the timer's turn comes first.
            assert ran_at and ran_at[0] <= 16


async def test_a_round_that_saw_done_keeps_the_connection(
    fake_openai: FakeOpenAIServer,
) -> None:
    """The server writes the body's last chunk after ``[DONE]``, apart from it: reading it
    keeps the connection for the next turn (no new connect per turn)."""
    fake_openai.default_reply = FakeReply.bulk(3000)
    agent = OpenAICompatAgent(AgentConfig(name="llama", url=fake_openai.url, model="m"))
    try:
        for _ in range(3):
            req = AgentRequest(slot="primary", prompt="go", cwd=".")
            text = "".join([e.text async for e in agent.stream(req) if type(e) is TextChunk])
            assert text == "tok " * 3000
    finally:
        await agent.aclose()
    assert fake_openai.connections == 1
