"""Async iteration over a blocking iterator (boto3's event stream) without blocking the loop.

The blocking side runs in a daemon thread and appends to a deque; the loop is woken only
when it is (or is about to be) waiting, so a burst of events costs one wake-up instead of
one ``call_soon_threadsafe`` per event (bench/bedrock_stream.py measures the difference).
Leaving the ``async for`` early (cancel, error, break) calls ``abort`` on the opened
stream from the loop so the worker's pending read returns at once.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import AsyncGenerator, Callable, Iterable
from typing import Any

_EVENT, _END, _ERROR = 0, 1, 2


async def iterate_in_thread(
    open_stream: Callable[[], Iterable[Any]],
    *,
    abort: Callable[[Any], None],
    name: str = "stream-worker",
) -> AsyncGenerator[Any, None]:
    """Yield the items of ``open_stream()`` (called in the worker); re-raise its errors."""
    loop = asyncio.get_running_loop()
    items: deque[tuple[int, Any]] = deque()
    wake = asyncio.Event()
    signalled = threading.Event()  # set while a wake-up is already on its way to the loop
    stop = threading.Event()
    opened: list[Any] = []

    def push(kind: int, value: Any) -> None:
        items.append((kind, value))
        if not signalled.is_set():
            signalled.set()
            try:
                loop.call_soon_threadsafe(wake.set)
            except RuntimeError:  # loop closed: nobody is listening any more
                stop.set()

    def work() -> None:
        try:
            stream = open_stream()
            opened.append(stream)
            if stop.is_set():
                abort(stream)
                return
            for item in stream:
                if stop.is_set():
                    return
                push(_EVENT, item)
            push(_END, None)
        except BaseException as e:  # noqa: BLE001 - forwarded to the awaiting coroutine
            if not stop.is_set():
                push(_ERROR, e)

    threading.Thread(target=work, daemon=True, name=name).start()
    try:
        while True:
            while items:
                kind, value = items.popleft()
                if kind == _EVENT:
                    yield value
                elif kind == _END:
                    return
                else:
                    raise value
            wake.clear()
            signalled.clear()
            if items:  # arrived between the drain and the clear: no wake-up was sent
                continue
            await wake.wait()
    finally:
        stop.set()
        for stream in opened:
            abort(stream)
