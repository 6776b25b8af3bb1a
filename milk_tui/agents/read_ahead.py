"""A response body read in its own task and handed over in pieces of what has arrived.

The HTTP client hands a fast local stream over one HTTP chunk (one SSE event) at a time,
though one socket read brought in hundreds of them; everything after it — the parse, the
events, the tag machine, the bus — would run once per event.  Here a task reads the body
while the consumer waits for bytes, and the consumer takes everything read so far at once,
joined.  The consumer only runs when the reading task waits (for the socket, or for the
loop: ``slice_s``), so a piece holds exactly what had arrived — no byte waits for a later
one, and a slow stream still comes one event per piece.  While the consumer does anything
else (it awaits a paint, or yields to the loop) the task reads nothing: it reads on when
the consumer asks again, as a plain ``async for`` would.  An SSE parser reads lines, so
where the bytes were cut carries no meaning (docs/performance.md, "The hot path, round 7").
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, AsyncIterator

GAP_S = 0.0003
"""How long the reading task sleeps when its slice is spent: any delay puts it behind the
timers that came due while it read (a frame, a key, the screen's update), where
``sleep(0)`` would run it again first and two of its slices would hold the loop back to
back with the work next to them."""


async def read_ahead(
    source: AsyncIterator[bytes], slice_s: float | None = None
) -> AsyncGenerator[bytes, None]:
    """``source``'s bytes, each piece everything read since the last one.

    ``slice_s``: the reading task lets the event loop run (``GAP_S``) after holding it
    that long (an interactive front end's pacing); None: it reads until the socket has
    nothing more.  An
    error of the read is raised here, after the bytes that came before it.
    """
    loop = asyncio.get_running_loop()
    buf: list[bytes] = []
    asking = False
    """The consumer waits for bytes: the task reads on."""
    wakes: list[asyncio.Future[None]] = []
    """The one of the two sides that sleeps, to be woken by the other."""
    failed: list[BaseException] = []
    ended = False

    def wake() -> None:
        if wakes:
            w = wakes.pop()
            if not w.done():
                w.set_result(None)

    async def sleep() -> None:
        w: asyncio.Future[None] = loop.create_future()
        wakes.append(w)
        await w

    async def pump() -> None:
        nonlocal ended
        append = buf.append
        clock = time.perf_counter
        n = 0
        start = clock()
        try:
            async for data in source:
                append(data)
                if wakes:
                    wake()
                if slice_s is not None:
                    n += 1
                    if not n & 15 and clock() - start > slice_s:
                        await asyncio.sleep(GAP_S)
                        start = clock()
                if not asking:
                    await sleep()
        except BaseException as e:  # noqa: BLE001  # the consumer's error: raised there
            failed.append(e)
        finally:
            ended = True
            wake()

    task = loop.create_task(pump())
    try:
        while True:
            if buf:
                data = buf[0] if len(buf) == 1 else b"".join(buf)
                buf.clear()
                yield data
                continue
            if ended:
                if failed:
                    raise failed[0]
                return
            asking = True
            wake()  # the task, if it paused while we were away
            try:
                await sleep()
            finally:
                asking = False
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
