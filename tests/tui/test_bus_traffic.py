"""What flows over the bus during a full turn, and what the bridge hands the widgets."""

from __future__ import annotations

import asyncio

import pytest

from milk_tui.engine.bus import EventBus
from milk_tui.model import events as ev
from milk_tui.testing.waits import until
from milk_tui.tui import bridge as bridge_module
from milk_tui.tui.bridge import BusBridge
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.reply_block import ReplyBlock
from tui.conftest import make_app, type_and_send


async def test_full_turn_bus_traffic_and_rendering() -> None:
    app = make_app()
    seen: list[ev.BusEvent] = []
    app.runtime.bus.add_listener(seen.append)
    delivered: list[ev.BusEvent] = []
    deliver = app.bridge._deliver

    def record(batch: list[ev.BusEvent]) -> None:
        delivered.extend(batch)
        deliver(batch)

    app.bridge._deliver = record  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "what is a monad?")
        types = [e.type for e in seen]  # type: ignore[attr-defined]
        # the order a primary turn must follow (docs/adr/0001: commit after the stream)
        order = [
            "turn_started",
            "route_decided",
            "state_changed",
            "request_sent",
            "need_changed",
            "text_delta",
            "usage",
            "turn_completed",
        ]
        positions = [types.index(t) for t in order]
        assert positions == sorted(positions), types
        assert types[-1] == "turn_completed"
        completed = seen[-1]
        assert isinstance(completed, ev.TurnCompleted) and completed.agent_name == "demo-local"
        streamed = "".join(e.text for e in seen if isinstance(e, ev.TextDelta))
        assert streamed == completed.text
        assert "<milk:" not in streamed  # tags never reach the UI
        # the bridge keeps every non-delta event but the send's signal, in order, and
        # coalesces deltas
        non_delta = [e.type for e in seen if e.type not in ("text_delta", "request_sent")]  # type: ignore[attr-defined]
        assert [e.type for e in delivered if e.type != "text_delta"] == non_delta  # type: ignore[attr-defined]
        got_deltas = [e for e in delivered if isinstance(e, ev.TextDelta)]
        assert "".join(e.text for e in got_deltas) == streamed
        assert len(got_deltas) <= sum(isinstance(e, ev.TextDelta) for e in seen)
        conv = app.main_screen.query_one(Conversation)
        reply = [r for r in conv.query(ReplyBlock) if r.display][-1]  # not the next turn's
        assert reply.done and reply.text == completed.text and reply.rendered_final


async def test_bridge_flushes_deltas_before_other_events() -> None:
    bus = EventBus()
    out: list[ev.BusEvent] = []
    bridge = BusBridge(bus, out.extend, frame_hz=1)  # frames far apart: only ordering flushes
    bridge.start()
    bus.publish(ev.TextDelta(slot="primary", text="a"))
    bus.publish(ev.TextDelta(slot="primary", text="b"))
    bus.publish(ev.ThinkingDelta(slot="escalation", text="t"))
    bus.publish(ev.EscalationStarted(agent_name="x", mode="first"))
    bus.publish(ev.TextDelta(slot="escalation", text="c"))
    bridge.flush()
    assert [(e.type, getattr(e, "text", "")) for e in out] == [
        ("text_delta", "ab"),
        ("thinking_delta", "t"),
        ("escalation_started", ""),
        ("text_delta", "c"),
    ]
    bridge.stop()
    bus.publish(ev.TextDelta(slot="primary", text="late"))
    bridge.flush()
    assert out[-1].text == "c"  # type: ignore[attr-defined]


async def _iterations(n: int = 5) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


def _turn_start(bus: EventBus) -> None:
    bus.publish(ev.TurnStarted(prompt="hello"))
    bus.publish(ev.RouteDecided(target="primary", agent_name="llama", reason="default"))
    bus.publish(ev.StateChanged(state="LOCAL", previous="ROUTING"))
    bus.publish(ev.Notice(message="a note"))


def _started_turn() -> tuple[EventBus, list[ev.BusEvent], BusBridge]:
    """A running bridge that has seen a turn's start (what it delivers goes to the list)."""
    bus = EventBus()
    out: list[ev.BusEvent] = []
    bridge = BusBridge(bus, out.extend)
    bridge.start()
    _turn_start(bus)
    return bus, out, bridge


async def test_a_turns_start_waits_for_its_request_to_be_sent() -> None:
    """Delivering the turn's start repaints the screen; a repaint between the request's
    build and its send would delay the send (docs/adr/0045)."""
    bus, out, bridge = _started_turn()
    await _iterations()
    assert out == []  # held
    bus.publish(ev.RequestSent(slot="primary", agent_name="llama"))
    await _iterations()
    assert [e.type for e in out] == ["turn_started", "route_decided", "state_changed", "notice"]
    bus.publish(ev.Notice(message="after"))  # no hold once the request is out
    await _iterations()
    assert out[-1].type == "notice" and out[-1].message == "after"  # type: ignore[attr-defined]
    bridge.stop()


async def test_the_hold_ends_by_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent that never says its request is out (a plain subprocess agent): the turn's
    start shows after ``HOLD_S`` all the same."""
    monkeypatch.setattr(bridge_module, "HOLD_S", 0.02)
    bus, out, bridge = _started_turn()
    await _iterations()
    assert out == []
    await until(None, lambda: len(out) == 4, what="the held turn start, after HOLD_S")
    bridge.stop()


@pytest.mark.parametrize(
    "event",
    [
        ev.TextDelta(slot="primary", text="hi"),
        ev.TurnFailed(error="unreachable"),
        ev.ToolCall(slot="primary", call_id="c", name="read_file", arguments="{}"),
    ],
    ids=["first text", "failure", "tool call"],
)
async def test_anything_else_ends_the_hold_in_order(event: ev.BusEvent) -> None:
    bus, out, bridge = _started_turn()
    bus.publish(event)
    await _iterations()
    assert [e.type for e in out] == [
        "turn_started",
        "route_decided",
        "state_changed",
        "notice",
        event.type,  # type: ignore[attr-defined]
    ]
    bus.publish(ev.Notice(message="after"))
    await _iterations()
    assert out[-1].type == "notice"  # type: ignore[attr-defined]
    bridge.stop()
