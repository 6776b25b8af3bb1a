"""The way from Enter to the first token on screen: the next turn's prompt and reply blocks
wait hidden at the end of the transcript, the first token shows both in one screen update,
the transcript follows the bottom in the layout pass itself, and no full garbage
collection runs while a turn does."""

from __future__ import annotations

import asyncio
import gc
import threading
from contextlib import asynccontextmanager

from textual import events

from milk_tui.engine import cooperative
from milk_tui.model import events as ev
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.tui import gc_pace
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.conversation_next import first_line
from milk_tui.tui.widgets.prompt_input import PromptInput
from milk_tui.tui.widgets.reply_block import ReplyBlock
from milk_tui.tui.widgets.tool_line import ToolLine
from milk_tui.tui.widgets.user_turn import UserTurn
from tui.conftest import fake_agent_config, make_app, settle, until


def _routed(bus) -> None:  # type: ignore[no-untyped-def]
    bus.publish(ev.TurnStarted(prompt="hello"))
    bus.publish(ev.RouteDecided(target="primary", agent_name="demo-local", reason="default"))


def _shown(conv: Conversation, kind: type) -> list:  # type: ignore[type-arg]
    return [w for w in conv.query(kind) if w.display]


async def test_the_first_token_shows_the_blocks_mounted_hidden_ahead_of_time() -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        bus = app.runtime.bus
        conv = app.main_screen.query_one(Conversation)
        await settle(pilot, app)
        spare = conv.query(ReplyBlock).last()
        user = conv.query(UserTurn).last()
        assert not spare.display and not user.display and spare.text == ""  # before Enter
        _routed(bus)
        await settle(pilot, app)
        assert conv.query(ReplyBlock).last() is spare and spare.text == ""  # hidden or waiting
        assert not [it for it in conv.items if it.kind == "reply"]  # not in the transcript yet
        bus.publish(ev.TextDelta(slot="primary", text="the answer"))
        await settle(pilot, app)
        reply = _shown(conv, ReplyBlock)[-1]
        assert reply is spare and reply.text == "the answer"
        assert reply.region.height > 1  # laid out: header and the text
        assert user.display and "hello" in user.prompt and user.agent_name == "demo-local"
        assert user.region.y < reply.region.y
        bus.publish(ev.TurnCompleted(slot="primary", agent_name="demo-local", text="the answer"))
        await settle(pilot, app)
        assert conv.items[-1].kind == "reply" and conv.items[-1].text == "the answer"


async def test_the_first_text_is_rendered_as_delivered_not_in_the_layout_pass() -> None:
    """The hidden reply block has no width of its own: it is given the one its layout will
    give it, so the first frame's Markdown is rendered by the delivery, and the layout that
    shows it (the same loop callback as the repaint) has nothing left to render."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        bus = app.runtime.bus
        conv = app.main_screen.query_one(Conversation)
        _routed(bus)
        await settle(pilot, app)
        spare = conv.query(ReplyBlock).last()
        bus.publish(ev.TextDelta(slot="primary", text="the **answer**"))
        app.bridge.flush()  # delivered; no screen update has run yet
        lines = len(spare._fixed) + len(spare._tail)
        assert lines > 1 and spare.open_renders == 1
        await settle(pilot, app)
        assert spare.open_renders == 1 and spare.region.height == lines


async def test_a_turn_without_text_leaves_no_empty_block() -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        bus = app.runtime.bus
        conv = app.main_screen.query_one(Conversation)
        _routed(bus)
        await settle(pilot, app)
        bus.publish(ev.TurnFailed(error="connection refused", agent_name="demo-local"))
        await settle(pilot, app)
        assert not _shown(conv, ReplyBlock)
        assert conv.items[-1].kind == "error"
        assert [type(w).__name__ for w in conv.children if w.display][-2:] == [
            "UserTurn",
            "TranscriptLine",
        ]


async def test_a_slow_answer_shows_the_prompt_and_the_reply_waiting() -> None:
    """No token within the wait: the prompt is shown, and the empty reply block under it
    with a line kept for the first text; a block that comes first hides the reply again
    and goes before it."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        bus = app.runtime.bus
        conv = app.main_screen.query_one(Conversation)
        _routed(bus)
        await until(pilot, lambda: bool(_shown(conv, ReplyBlock)) and conv.region.height > 0)
        await settle(pilot, app)
        user, reply = _shown(conv, UserTurn)[-1], _shown(conv, ReplyBlock)[-1]
        assert user.prompt == "hello" and reply.text == ""
        assert reply.region.height == 2 and reply.region.y > user.region.y  # header + 1 kept
        assert not [it for it in conv.items if it.kind == "reply"]
        bus.publish(ev.Notice(message="still thinking", level="info"))
        await settle(pilot, app)
        assert not _shown(conv, ReplyBlock)
        bus.publish(ev.TextDelta(slot="primary", text="late"))
        await settle(pilot, app)
        kinds = [type(w).__name__ for w in conv.children if w.display]
        assert kinds[-3:] == ["UserTurn", "TranscriptLine", "ReplyBlock"]
        assert _shown(conv, ReplyBlock)[-1] is reply and reply.text == "late"


async def test_a_route_decided_after_the_wait_still_shows_the_reply_waiting() -> None:
    """On a busy machine the turn may be routed only after the wait for a token ran out:
    the prompt is shown alone then, and its reply block, once aimed, waits under it."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        bus = app.runtime.bus
        conv = app.main_screen.query_one(Conversation)
        bus.publish(ev.TurnStarted(prompt="hello"))
        await until(pilot, lambda: bool(_shown(conv, UserTurn)), what="the prompt shown alone")
        assert not _shown(conv, ReplyBlock)
        bus.publish(ev.RouteDecided(target="primary", agent_name="demo-local", reason="default"))
        await until(pilot, lambda: bool(_shown(conv, ReplyBlock)), what="the reply waiting")
        reply = _shown(conv, ReplyBlock)[-1]
        assert reply.text == "" and reply.agent_name == "demo-local"
        bus.publish(ev.TextDelta(slot="primary", text="late"))
        await settle(pilot, app)
        assert _shown(conv, ReplyBlock)[-1] is reply and reply.text == "late"


async def test_the_first_token_of_a_waiting_reply_needs_no_layout() -> None:
    """The first line of text fills the kept line: the screen repaints the block without a
    layout, so the transcript does not move; the rest of the first text follows after."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        bus = app.runtime.bus
        conv = app.main_screen.query_one(Conversation)
        _routed(bus)
        await until(pilot, lambda: bool(_shown(conv, ReplyBlock)))
        await settle(pilot, app)
        reply = _shown(conv, ReplyBlock)[-1]
        screen = app.main_screen
        layouts: list[str] = []
        paints: list[str] = []
        layout, paint = screen._refresh_layout, screen._compositor_refresh

        def spy_layout(*args, **kwargs):  # type: ignore[no-untyped-def]
            layouts.append(reply.text)
            layout(*args, **kwargs)

        def spy_paint() -> None:
            paints.append(reply.text)
            paint()

        screen._refresh_layout = spy_layout  # type: ignore[method-assign]  # observe only
        screen._compositor_refresh = spy_paint  # type: ignore[method-assign]  # observe only
        words = " ".join(f"word{i}" for i in range(60))
        bus.publish(ev.TextDelta(slot="primary", text=words))
        app.bridge.flush()
        await until(pilot, lambda: reply.text == words)
        await settle(pilot, app)
        first = words[: words.rfind(" ", 0, reply.content_region.width) + 1]
        assert first in paints and first not in layouts  # painted alone, without a layout
        assert layouts and layouts[0] == words
        assert reply.region.height > 2 and conv.scroll_y == conv.max_scroll_y


async def test_a_turn_without_text_keeps_the_next_turns_blocks_in_order() -> None:
    """A turn that failed before any text leaves its reply block spare; the next turn's
    prompt and reply still come after the failed turn's error, in that order."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        bus = app.runtime.bus
        conv = app.main_screen.query_one(Conversation)
        _routed(bus)
        await until(pilot, lambda: bool(_shown(conv, ReplyBlock)))  # waiting, then failed
        bus.publish(ev.TurnFailed(error="connection refused", agent_name="demo-local"))
        await settle(pilot, app)
        bus.publish(ev.TurnStarted(prompt="again"))
        bus.publish(ev.RouteDecided(target="primary", agent_name="demo-local", reason="x"))
        bus.publish(ev.TextDelta(slot="primary", text="the answer"))
        await settle(pilot, app)
        shown = [w for w in conv.children if w.display]
        assert [type(w).__name__ for w in shown][-4:] == [
            "UserTurn",
            "TranscriptLine",
            "UserTurn",
            "ReplyBlock",
        ]
        assert shown[-2].prompt == "again" and shown[-1].text == "the answer"


async def test_a_slow_server_shows_the_prompt_before_its_first_token() -> None:
    """A real turn against a fake server that answers after a pause: the prompt and the
    waiting reply are on screen before any text has arrived."""
    held = threading.Event()  # the server sends its headers and role chunk, then waits
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["slow ", "answer"], hold=held, hold_after=1)
        app = make_app(config=fake_agent_config(srv.url), demo=False)
        async with app.run_test(size=(100, 30)) as pilot:
            conv = app.main_screen.query_one(Conversation)
            app.main_screen.query_one(PromptInput).set_text("are you there?")
            await pilot.press("enter")
            await until(pilot, lambda: bool(_shown(conv, ReplyBlock)))
            reply = _shown(conv, ReplyBlock)[-1]
            assert reply.text == "" and app.facade.busy
            assert _shown(conv, UserTurn)[-1].prompt == "are you there?"
            held.set()
            await settle(pilot, app)
            assert reply.text == "slow answer" and _shown(conv, ReplyBlock)[-1] is reply


async def test_a_tool_call_before_the_text_keeps_the_blocks_in_order() -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        bus = app.runtime.bus
        conv = app.main_screen.query_one(Conversation)
        _routed(bus)
        bus.publish(ev.ToolCall(slot="primary", call_id="c1", name="list_dir", arguments="{}"))
        bus.publish(ev.TextDelta(slot="primary", text="done listing"))
        bus.publish(ev.TurnCompleted(slot="primary", agent_name="demo-local", text="done listing"))
        await settle(pilot, app)
        kinds = [type(w).__name__ for w in conv.children if w.display]
        assert kinds[-3:] == ["UserTurn", "ToolLine", "ReplyBlock"]
        assert len(_shown(conv, ReplyBlock)) == 1 and conv.query_one(ToolLine)


async def test_new_text_is_in_view_after_one_layout() -> None:
    """The bottom is followed in the layout pass: after the first screen update that lays
    out the grown reply, the view is already at the bottom (no scroll after it)."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        bus = app.runtime.bus
        conv = app.main_screen.query_one(Conversation)
        _routed(bus)
        bus.publish(ev.TextDelta(slot="primary", text="".join(f"line {i}\n\n" for i in range(60))))
        await settle(pilot, app)
        screen = app.main_screen
        seen: list[tuple[float, int]] = []
        layout = screen._refresh_layout

        def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
            layout(*args, **kwargs)
            seen.append((conv.scroll_y, conv.max_scroll_y))

        screen._refresh_layout = spy  # type: ignore[method-assign]  # observe, not change
        bus.publish(ev.TextDelta(slot="primary", text="tail\n\n" * 10))
        await settle(pilot, app)
        assert seen and seen[0][0] == seen[0][1] > 0


def test_the_first_line_ends_at_a_newline_or_a_space_within_the_width() -> None:
    assert first_line("one two\nthree", 40) == len("one two\n")
    assert first_line("one two three four", 10) == len("one two ")
    assert first_line("short", 40) == 5
    assert first_line("abcdefghijkl", 5) == 5  # no space: cut at the width
    assert first_line("anything", 0) == len("anything")


def test_no_full_collection_while_a_turn_runs() -> None:
    gc_pace.release(gc_pace._turn)  # an app closed mid-turn earlier in this process
    before = gc.get_threshold()
    token = gc_pace.hold()
    try:
        assert gc.get_threshold()[2] == gc_pace.HOLD_THRESHOLD
        again = gc_pace.hold()  # a second turn before the first was released
        gc_pace.release(token)  # stale: the hold stays
        assert gc.get_threshold()[2] == gc_pace.HOLD_THRESHOLD
        gc_pace.release(again)
        assert gc.get_threshold() == before
        assert gc.get_freeze_count() > 0
    finally:
        gc_pace.release(gc_pace._turn)
        gc.unfreeze()


def test_no_collection_at_all_until_the_first_text_is_painted() -> None:
    gc_pace.release(gc_pace._turn)
    token = gc_pace.hold()
    try:
        assert not gc.isenabled() and gc_pace.paused()
        gc_pace.first_text_painted()
        assert gc.isenabled() and not gc_pace.paused()
        gc.disable()  # off for another reason (the app's start-up): a turn leaves it so
        again = gc_pace.hold()
        gc_pace.first_text_painted()
        assert not gc.isenabled()
        gc.enable()
        third = gc_pace.hold()  # a turn without text is released at its end
        gc_pace.release(token)  # stale: still held
        assert not gc.isenabled()
        gc_pace.release(third)
        assert gc.isenabled() and again < third
    finally:
        gc.enable()
        gc_pace.release(gc_pace._turn)
        gc.unfreeze()


def test_the_private_textual_api_used_to_paint_at_once_is_there() -> None:
    """``stream_pace.update_screen_now`` calls the screen's update-timer callback and
    reads whether a layout or a repaint is due: if Textual renames any, this fails."""
    from textual.screen import Screen

    assert callable(Screen._on_timer_update)
    probe = vars(Screen("probe"))
    assert "_layout_required" in probe and isinstance(probe["_dirty_widgets"], set)


async def test_turn_state_events_that_change_nothing_do_not_redraw_the_escalation_pane() -> None:
    """Each ``Static.update`` of the pane lays out the whole screen: between Enter and the
    first token a primary turn changes nothing the pane shows."""
    from milk_tui.tui.widgets.escalation_pane import EscalationPane

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        pane = app.main_screen.query_one(EscalationPane)
        updates: list[object] = []
        update = pane.body.update
        pane.body.update = lambda *a, **k: (updates.append(a), update(*a, **k))[1]  # type: ignore[method-assign]  # a spy
        _routed(app.runtime.bus)
        app.runtime.bus.publish(ev.StateChanged(state="local"))
        await settle(pilot, app)
        assert not updates
        pane.tool_calls = 3  # something it shows changes: it redraws
        app.runtime.bus.publish(ev.StateChanged(state="idle"))
        await settle(pilot, app)
        assert len(updates) == 1


async def test_the_collection_after_a_turn_waits_for_the_reply_to_be_rendered(
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    """A long Markdown reply's queued blocks are rendered after its last token: the
    turn's garbage collection comes after them, not in the middle."""
    monkeypatch.setattr(gc_pace, "RELEASE_AFTER_S", 0.01)
    released: list[int] = []
    monkeypatch.setattr(gc_pace, "release", released.append)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        bus = app.runtime.bus
        conv = app.main_screen.query_one(Conversation)
        _routed(bus)
        bus.publish(ev.TextDelta(slot="primary", text="still rendering"))
        await settle(pilot, app)
        reply = [r for r in conv.query(ReplyBlock) if r.display][-1]
        queued = [True]  # as if blocks were still queued after the last token
        monkeypatch.setattr(type(reply), "rendering", property(lambda r: queued[0]))
        bus.publish(ev.TurnCompleted(slot="primary", agent_name="demo-local", text="x"))
        await settle(pilot, app)
        await pilot.pause(0.1)
        assert not released
        queued[0] = False
        await until(pilot, lambda: bool(released))
        assert released


WHOLE_REPLY = ["first line\n"] + [f"more {i} " for i in range(300)]
"""A reply a fast server sends at once: its first text, then 300 more chunks."""


class _Frames:
    """Counts the frames ``app`` writes, and which one came before its first text's
    delivery (``delivered_at``): what a first-text wait is measured against."""

    def __init__(self, app) -> None:  # type: ignore[no-untyped-def]
        self.count, self.delivered_at = 0, -1
        display, handle = app._display, app.main_screen.handle_bus_events

        def counted(screen, update):  # type: ignore[no-untyped-def]
            self.count += 1
            display(screen, update)

        def handled(batch):  # type: ignore[no-untyped-def]
            handle(batch)
            if self.delivered_at < 0 and any(isinstance(e, ev.TextDelta) for e in batch):
                self.delivered_at = self.count

        app._display = counted  # counts frames written
        app.main_screen.handle_bus_events = handled

    def since_delivery(self) -> int:
        return self.count - self.delivered_at


@asynccontextmanager
async def _whole_reply_app(monkeypatch):  # type: ignore[no-untyped-def]
    """The app on a fake server that sends ``WHOLE_REPLY`` at once, and the first-text
    wait the app installed (released by the app alone: no 30 ms cap)."""
    monkeypatch.setattr(cooperative, "FIRST_TEXT_WAIT_S", 10.0)
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=WHOLE_REPLY)
        app = make_app(config=fake_agent_config(srv.url), demo=False)
        async with app.run_test(size=(100, 30)) as pilot:
            wait = app.facade.runtime.pacing.first_text_shown
            assert wait is not None
            yield app, pilot, wait


async def test_a_reply_sent_whole_is_read_on_only_once_its_first_text_is_painted(
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    """A real turn against a server that sends its whole reply at once: the agent's stream
    waits (engine/cooperative.py, tui/first_text.py) until the first text has been
    delivered and the screen updated; by then the text is laid out on screen, and the
    rest of the reply has not been published yet."""
    async with _whole_reply_app(monkeypatch) as (app, pilot, wait):
        conv = app.main_screen.query_one(Conversation)
        deltas: list[str] = []
        app.facade.add_listener(
            lambda e: deltas.append(e.text) if isinstance(e, ev.TextDelta) else None
        )
        frames, seen, collecting = _Frames(app), [], []

        async def watched() -> None:
            published = len(deltas)
            collecting.append(gc.isenabled())
            await wait()
            collecting.append(gc.isenabled())
            shown = [r.text for r in _shown(conv, ReplyBlock) if r.text]
            seen.append((published, len(deltas), shown, frames.since_delivery()))

        app.facade.pace_first_text(watched)
        app.main_screen.query_one(PromptInput).set_text("all at once?")
        await pilot.press("enter")
        await settle(pilot, app)
        assert len(seen) == 1
        published, at_release, shown, frames_since = seen[0]
        # The first text is published a loop turn after it is read (engine/agent_stream.py)
        assert published <= 1 and at_release == 1  # nothing more was read meanwhile
        assert shown and shown[-1].startswith("first line")
        assert frames_since >= 1  # a frame was written after its delivery
        assert collecting == [False, True]  # no collection until then (gc_pace.hold)
        assert _shown(conv, ReplyBlock)[-1].text.endswith("more 299 ")


async def test_keys_typed_while_the_first_text_arrives_do_not_hold_the_stream(
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    """Textual's after-refresh callbacks wait for a screen with nothing left to repaint; a
    prompt box being typed into is rarely that.  The stream reads on right after the
    screen update that shows its first text (``stream_pace.after_update``), typing or
    not: within two frames of the text's delivery (a key's own repaint may come first)."""
    async with _whole_reply_app(monkeypatch) as (app, pilot, wait):
        box = app.main_screen.query_one(PromptInput)
        frames, frames_to_release = _Frames(app), []

        async def watched() -> None:
            await wait()
            frames_to_release.append(frames.since_delivery())

        async def type_keys() -> None:
            for i in range(100):  # a key every 2 ms, as bench/tui_stream.py types
                app.post_message(events.Key("x", "x"))
                if i % 20 == 19:
                    box.set_text("")
                await asyncio.sleep(0.002)

        app.facade.pace_first_text(watched)
        box.set_text("all at once?")
        await pilot.press("enter")
        keys = asyncio.create_task(type_keys())
        await settle(pilot, app)
        await keys
        assert frames_to_release in ([1], [2])
