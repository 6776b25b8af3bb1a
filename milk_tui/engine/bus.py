"""In-process event bus.

``publish`` is synchronous and never awaits, so the dispatcher's hot path (one call per
streamed chunk) is a deque append per subscriber.  Each async subscriber owns a queue
that coalesces adjacent text/thinking deltas once it is past a soft limit: a subscriber
that falls behind sees fewer, larger deltas (no text lost) instead of an unbounded
backlog.  Non-delta events are few per turn and are always kept.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import AsyncIterator, Callable

from milk_tui.model.events import BusEvent, TextDelta, ThinkingDelta, fast_delta

COALESCE_AFTER = 64
"""Queue length past which adjacent deltas merge; small enough that a stalled consumer
holds at most a few dozen event objects, large enough that a live one sees every chunk."""


class _Merged:
    """Adjacent deltas folded together; parts are joined once, when the subscriber reads."""

    __slots__ = ("cls", "slot", "session_id", "parts")

    def __init__(self, first: TextDelta | ThinkingDelta) -> None:
        self.cls = type(first)
        self.slot = first.slot
        self.session_id = first.session_id
        self.parts = [first.text]

    def materialise(self) -> BusEvent:
        return fast_delta(self.cls, self.slot, "".join(self.parts), self.session_id)


class Subscription:
    """One subscriber's queue; iterate with ``async for`` or drain with ``get_nowait_all``."""

    def __init__(self, bus: EventBus, types: frozenset[str] | None) -> None:
        self._bus = bus
        self._types = types
        self._queue: collections.deque[BusEvent | _Merged] = collections.deque()
        self._wakeup = asyncio.Event()
        self._closed = False
        self.coalesced = 0

    def _offer(self, event: BusEvent) -> None:
        if self._types is not None and getattr(event, "type", "") not in self._types:
            return
        q = self._queue
        if len(q) >= COALESCE_AFTER and isinstance(event, (TextDelta, ThinkingDelta)):
            tail = q[-1]
            if type(tail) is _Merged and tail.cls is type(event) and tail.slot == event.slot:
                tail.parts.append(event.text)
                self.coalesced += 1
                return
            if type(tail) is type(event) and tail.slot == event.slot:
                merged = _Merged(tail)
                merged.parts.append(event.text)
                q[-1] = merged
                self.coalesced += 1
                return
        q.append(event)
        self._wakeup.set()

    def get_nowait_all(self) -> list[BusEvent]:
        items = [i.materialise() if isinstance(i, _Merged) else i for i in self._queue]
        self._queue.clear()
        self._wakeup.clear()
        return items

    async def get(self) -> BusEvent:
        while not self._queue:
            if self._closed:
                raise StopAsyncIteration
            self._wakeup.clear()
            await self._wakeup.wait()
        item = self._queue.popleft()
        return item.materialise() if isinstance(item, _Merged) else item

    def __aiter__(self) -> AsyncIterator[BusEvent]:
        return self

    async def __anext__(self) -> BusEvent:
        return await self.get()

    def close(self) -> None:
        self._closed = True
        self._wakeup.set()
        self._bus._subs.discard(self)


class EventBus:
    def __init__(self) -> None:
        self._subs: set[Subscription] = set()
        self._callbacks: list[Callable[[BusEvent], None]] = []
        self.listener_errors: list[str] = []
        """Listeners that raised were detached; their errors are kept for diagnostics."""

    def subscribe(self, types: set[str] | None = None) -> Subscription:
        sub = Subscription(self, frozenset(types) if types else None)
        self._subs.add(sub)
        return sub

    def add_listener(self, callback: Callable[[BusEvent], None]) -> Callable[[], None]:
        """Synchronous listener called inline; it must not block (post a message, append).

        Returns a function that removes the listener.
        """
        self._callbacks.append(callback)
        return lambda: self._callbacks.remove(callback) if callback in self._callbacks else None

    def publish(self, event: BusEvent) -> None:
        for cb in list(self._callbacks):
            try:
                cb(event)
            except Exception as e:  # noqa: BLE001 — a broken listener must not break a turn
                self._callbacks.remove(cb)
                self.listener_errors.append(f"{getattr(cb, '__qualname__', cb)}: {e!r}")
        for sub in list(self._subs):
            sub._offer(event)
