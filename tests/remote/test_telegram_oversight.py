"""Remote oversight end to end: a real application, the fake OpenAI server scripting a
write_file call, and the fake Bot API over HTTP driven as the phone."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from milk_tui.facade.application import Application
from milk_tui.model import events as ev
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.testing.fake_telegram import FakeTelegram, Sent
from milk_tui.testing.permission_tools import add_test_tools
from milk_tui.testing.waits import until
from tests.remote.rig import CHAT, open_app, script_write

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(autouse=True)
def with_write_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    add_test_tools(monkeypatch)


@pytest.fixture
def srv() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as s:
        yield s


@pytest.fixture
def tg() -> Iterator[FakeTelegram]:
    with FakeTelegram() as t:
        yield t


async def question(tg: FakeTelegram) -> Sent:
    return await asyncio.to_thread(
        tg.wait_message, lambda m: m.text.startswith("🔐") and bool(m.buttons)
    )


async def started(app: Application, tg: FakeTelegram) -> None:
    await app.start_remote()
    assert app.remote is not None
    await until(None, lambda: tg.polls() >= 2, what="the long poll running")


def decided(events: list[Any]) -> list[ev.PermissionDecided]:
    return [e for e in events if isinstance(e, ev.PermissionDecided)]


@pytest.mark.parametrize("choice", ["y", "a", "n"])
async def test_a_button_on_the_phone_answers_the_permission(
    srv: FakeOpenAIServer, tg: FakeTelegram, tmp_path: Path, choice: str
) -> None:
    app, events = open_app(srv, tg, tmp_path)
    try:
        await started(app, tg)
        script_write(srv)
        task = app.submit("write it", force="primary")
        assert task is not None
        msg = await question(tg)
        assert [b[0] for b in msg.buttons] == ["Yes", "Always", "No"]
        data = next(d for _, d in msg.buttons if d.endswith(":" + choice))
        tg.press(CHAT, msg.message_id, data)
        out = await asyncio.wait_for(task, 60)
        assert out.ok
        (d,) = decided(events)
        assert d.answered_from == "telegram" and d.allowed == (choice != "n")
        assert d.how == ("always" if choice == "a" else "user")
        assert (tmp_path / "out.txt").exists() == (choice != "n")
        await until(None, lambda: bool(msg.edits), what="the question edited")
        assert "answered here" in msg.edits[-1]
        await until(None, lambda: bool(tg.callback_answers), what="the button press answered")
    finally:
        await app.aclose()


@pytest.mark.parametrize(("reply", "allowed"), [("y", True), ("No", False), ("always", True)])
async def test_a_text_reply_answers_the_permission(
    srv: FakeOpenAIServer, tg: FakeTelegram, tmp_path: Path, reply: str, allowed: bool
) -> None:
    app, events = open_app(srv, tg, tmp_path)
    try:
        await started(app, tg)
        script_write(srv)
        task = app.submit("write it", force="primary")
        assert task is not None
        await question(tg)
        tg.send_text(CHAT, reply)
        out = await asyncio.wait_for(task, 60)
        assert out.ok
        (d,) = decided(events)
        assert (d.answered_from, d.allowed) == ("telegram", allowed)
        assert (tmp_path / "out.txt").exists() == allowed
    finally:
        await app.aclose()


async def test_terminal_first_then_phone_exactly_one_winner(
    srv: FakeOpenAIServer, tg: FakeTelegram, tmp_path: Path
) -> None:
    app, events = open_app(srv, tg, tmp_path)
    try:
        await started(app, tg)
        script_write(srv)
        task = app.submit("write it", force="primary")
        assert task is not None
        msg = await question(tg)
        (req,) = [e for e in events if isinstance(e, ev.PermissionRequested)]
        app.answer_permission(req.request_id, False)  # the terminal says no
        tg.press(CHAT, msg.message_id, msg.buttons[0][1])  # the phone says yes, too late
        out = await asyncio.wait_for(task, 60)
        assert out.ok and not (tmp_path / "out.txt").exists()
        await until(None, lambda: bool(tg.callback_answers), what="the late press answered")
        assert tg.callback_answers[-1][1] == "already answered"
        (d,) = decided(events)
        assert (d.allowed, d.answered_from) == (False, "")
        await until(None, lambda: bool(msg.edits), what="the phone told")
        assert "answered in the terminal" in msg.edits[-1]
    finally:
        await app.aclose()


async def test_phone_first_then_terminal_exactly_one_winner(
    srv: FakeOpenAIServer, tg: FakeTelegram, tmp_path: Path
) -> None:
    app, events = open_app(srv, tg, tmp_path)
    try:
        await started(app, tg)
        script_write(srv)
        task = app.submit("write it", force="primary")
        assert task is not None
        msg = await question(tg)
        (req,) = [e for e in events if isinstance(e, ev.PermissionRequested)]

        def terminal_too(e: ev.BusEvent) -> None:  # the terminal's no in the very same tick
            if isinstance(e, ev.PermissionDecided):
                app.answer_permission(req.request_id, False)

        app.add_listener(terminal_too)
        tg.press(CHAT, msg.message_id, msg.buttons[0][1])  # yes from the phone
        await until(None, lambda: bool(decided(events)), what="the phone's answer")
        out = await asyncio.wait_for(task, 60)
        assert out.ok and (tmp_path / "out.txt").exists()
        (d,) = decided(events)
        assert (d.allowed, d.answered_from) == (True, "telegram")
    finally:
        await app.aclose()


@pytest.mark.parametrize(("action", "allowed"), [("deny", False), ("allow", True)])
async def test_no_answer_in_time_takes_the_timeout_action(
    srv: FakeOpenAIServer,
    tg: FakeTelegram,
    tmp_path: Path,
    action: str,
    allowed: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("milk_tui.config.remote_oversight.DEFAULT_PERM_TIMEOUT_SECS", 1)
    app, events = open_app(srv, tg, tmp_path, timeout_action=action, perm_timeout_secs=1)
    try:
        await started(app, tg)
        script_write(srv)
        task = app.submit("write it", force="primary")
        assert task is not None
        msg = await question(tg)
        out = await asyncio.wait_for(task, 60)
        assert out.ok
        (d,) = decided(events)
        assert (d.allowed, d.answered_from) == (allowed, "timeout")
        assert (tmp_path / "out.txt").exists() == allowed
        await until(None, lambda: bool(msg.edits), what="the phone told")
        assert "no answer in time" in msg.edits[-1]
    finally:
        await app.aclose()


async def test_another_chat_is_ignored_and_named_once(
    srv: FakeOpenAIServer, tg: FakeTelegram, tmp_path: Path
) -> None:
    app, events = open_app(srv, tg, tmp_path)
    try:
        await started(app, tg)
        script_write(srv)
        task = app.submit("write it", force="primary")
        assert task is not None
        msg = await question(tg)
        tg.press(999, msg.message_id, msg.buttons[0][1])
        tg.send_text(999, "y")
        tg.send_text(999, "hello")
        last = tg.last_update_id
        await until(None, lambda: tg.confirmed(last), what="the strangers' updates read")
        assert not decided(events) and not task.done()
        notices = [e.message for e in events if isinstance(e, ev.Notice) and "999" in e.message]
        assert len(notices) == 1 and "ignored" in notices[0]
        tg.send_text(CHAT, "n")
        out = await asyncio.wait_for(task, 60)
        assert out.ok and not (tmp_path / "out.txt").exists()
    finally:
        await app.aclose()


async def test_a_prompt_from_the_phone_runs_a_turn_and_its_end_is_sent(
    srv: FakeOpenAIServer, tg: FakeTelegram, tmp_path: Path
) -> None:
    app, events = open_app(srv, tg, tmp_path)
    try:
        await started(app, tg)
        srv.enqueue(FakeReply(text=["the answer is 42"]))
        tg.send_text(CHAT, "what is the answer?")
        await until(
            None,
            lambda: any(isinstance(e, ev.TurnCompleted) for e in events),
            what="the phone's turn",
        )
        (started_turn,) = [e for e in events if isinstance(e, ev.TurnStarted)]
        assert started_turn.prompt == "what is the answer?"
        done = await asyncio.to_thread(tg.wait_message, lambda m: m.text.startswith("✅"))
        assert "the answer is 42" in done.text
    finally:
        await app.aclose()


async def test_telegram_down_then_back_one_notice_and_the_turn_is_not_stuck(
    srv: FakeOpenAIServer, tg: FakeTelegram, tmp_path: Path
) -> None:
    app, events = open_app(srv, tg, tmp_path)
    try:
        await started(app, tg)
        tg.down = True
        down_at = tg.polls()
        await until(None, lambda: tg.polls() >= down_at + 3, timeout=60, what="three failed polls")
        warnings = [e for e in events if isinstance(e, ev.Notice) and "back-off" in e.message]
        assert len(warnings) == 1
        assert app.remote is not None and "unreachable" in app.remote.status()
        srv.enqueue(FakeReply(text=["fine"]))  # a turn while Telegram is down still ends
        out = await asyncio.wait_for(app.run_turn("hi", force="primary"), 60)
        assert out.ok
        tg.down = False
        await until(
            None,
            lambda: any(
                isinstance(e, ev.Notice) and "reachable again" in e.message for e in events
            ),
            timeout=120,
        )
        assert len([e for e in events if isinstance(e, ev.Notice) and "back-off" in e.message]) == 1
    finally:
        await app.aclose()


async def test_off_nothing_changes_and_no_one_is_asked(
    srv: FakeOpenAIServer, tg: FakeTelegram, tmp_path: Path
) -> None:
    """Oversight off abstains: the headless refusal stays, nothing is sent to the phone."""
    app, events = open_app(srv, tg, tmp_path, "deny", backend="")
    try:
        await app.start_remote()
        assert app.remote is None
        script_write(srv)
        out = await asyncio.wait_for(app.run_turn("write it", force="primary"), 60)
        assert out.ok and not (tmp_path / "out.txt").exists()
        (d,) = decided(events)
        assert d.how == "headless"
        assert not tg.calls
    finally:
        await app.aclose()


async def test_headless_with_oversight_asks_the_phone(
    srv: FakeOpenAIServer, tg: FakeTelegram, tmp_path: Path
) -> None:
    app, events = open_app(srv, tg, tmp_path, "deny")
    try:
        await started(app, tg)
        script_write(srv)
        task = app.submit("write it", force="primary")
        assert task is not None
        msg = await question(tg)
        tg.press(CHAT, msg.message_id, msg.buttons[0][1])
        out = await asyncio.wait_for(task, 60)
        assert out.ok and (tmp_path / "out.txt").exists()
    finally:
        await app.aclose()


async def test_a_backlog_from_before_the_start_is_not_replayed(
    srv: FakeOpenAIServer, tg: FakeTelegram, tmp_path: Path
) -> None:
    tg.send_text(CHAT, "an old prompt sent while milk-tui was closed")
    tg.send_text(CHAT, "another")
    app, events = open_app(srv, tg, tmp_path)
    try:
        await started(app, tg)
        last = tg.last_update_id
        await until(None, lambda: tg.confirmed(last), what="the backlog confirmed")
        srv.enqueue(FakeReply(text=["ok"]))
        tg.send_text(CHAT, "a new prompt")
        await until(
            None,
            lambda: any(isinstance(e, ev.TurnCompleted) for e in events),
            what="the new prompt's turn",
        )
        assert [e.prompt for e in events if isinstance(e, ev.TurnStarted)] == ["a new prompt"]
    finally:
        await app.aclose()
