"""A slow subscriber neither blocks the publisher nor grows without bound, and loses no text."""

from __future__ import annotations

from milk_tui.engine.bus import COALESCE_AFTER, EventBus
from milk_tui.model.events import Notice, TextDelta


async def test_stalled_subscriber_is_bounded_and_lossless():
    bus = EventBus()
    sub = bus.subscribe()
    for i in range(20_000):
        bus.publish(TextDelta(slot="primary", text=f"{i},"))
        if i == 10_000:
            bus.publish(Notice(message="mid"))
    items = sub.get_nowait_all()
    assert len(items) <= 2 * COALESCE_AFTER + 2
    text = "".join(e.text for e in items if isinstance(e, TextDelta))
    assert text == "".join(f"{i}," for i in range(20_000))
    assert [e.type for e in items].count("notice") == 1


async def test_async_iteration_and_type_filter():
    bus = EventBus()
    sub = bus.subscribe({"notice"})
    bus.publish(TextDelta(slot="primary", text="x"))
    bus.publish(Notice(message="hello"))
    ev = await sub.get()
    assert ev.type == "notice" and ev.message == "hello"
    sub.close()


def test_broken_listener_is_detached_not_fatal():
    bus = EventBus()
    seen = []

    def bad(_e):
        raise BrokenPipeError

    bus.add_listener(bad)
    bus.add_listener(seen.append)
    bus.publish(Notice(message="a"))
    bus.publish(Notice(message="b"))
    assert len(seen) == 2 and bus.listener_errors
