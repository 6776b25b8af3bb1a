"""The terminal's permission question and the phone race under Pilot: the first answer wins,
the other side shows who answered (the modal closes with a line; the phone message is edited)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from textual.widgets import Input, Static

from milk_tui.agents.base import PermissionAnswer, PermissionQuestion
from milk_tui.config.settings import MilkConfig
from milk_tui.testing.fake_telegram import FakeTelegram, Sent
from milk_tui.tui.screens.permission_modal import PermissionModal
from milk_tui.tui.widgets.conversation import Conversation
from tui.conftest import make_app, until

CHAT = 4242
GIT = PermissionQuestion(
    "llama", "bash", {"command": "git status"}, effect="run",
    grant="bash:git status", grant_all="bash",
)  # fmt: skip
pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def tg() -> Iterator[FakeTelegram]:
    with FakeTelegram() as t:
        yield t


def app_with_phone(tg: FakeTelegram) -> Any:
    cfg = MilkConfig(
        remote_oversight={
            "backend": "telegram",
            "telegram": {"token": tg.token, "chat_id": CHAT, "api_url": tg.url},
        }
    )
    return make_app(config=cfg)


async def asked(
    pilot: Any, app: Any, tg: FakeTelegram
) -> tuple[asyncio.Task[PermissionAnswer], Sent]:
    await until(
        pilot, lambda: app.facade.remote is not None and tg.polls() >= 2, what="oversight up"
    )
    task = asyncio.create_task(app.runtime.dispatcher._ask_permission(GIT))
    await until(pilot, lambda: isinstance(app.screen, PermissionModal), what="the modal")
    msg = await asyncio.to_thread(tg.wait_message, lambda m: bool(m.buttons))
    return task, msg


def lines(app: Any) -> str:
    return "\n".join(str(it.text) for it in app.main_screen.query_one(Conversation).items)


async def test_the_phone_answers_first_and_the_modal_closes_saying_so(tg: FakeTelegram) -> None:
    app = app_with_phone(tg)
    async with app.run_test(size=(120, 40)) as pilot:
        task, msg = await asked(pilot, app, tg)
        tg.press(CHAT, msg.message_id, msg.buttons[0][1])
        answer = await asyncio.wait_for(task, 30)
        assert answer.allow
        await until(
            pilot, lambda: not isinstance(app.screen, PermissionModal), what="the modal closed"
        )
        await until(pilot, lambda: "answered from Telegram" in lines(app), what="the line")
        await pilot.press("n")  # a late key on the main screen answers nothing
        assert "bash: denied" not in lines(app)


async def test_the_terminal_answers_first_and_the_phone_is_told(tg: FakeTelegram) -> None:
    app = app_with_phone(tg)
    async with app.run_test(size=(120, 40)) as pilot:
        task, msg = await asked(pilot, app, tg)
        late = msg.buttons[0][1]
        await pilot.press("n")
        answer = await asyncio.wait_for(task, 30)
        assert not answer.allow
        await asyncio.to_thread(tg.wait_for, lambda: msg.edits, 30, "the phone message edited")
        assert "answered in the terminal" in msg.edits[-1]
        tg.press(CHAT, msg.message_id, late)
        await asyncio.to_thread(tg.wait_for, lambda: tg.callback_answers, 30, "the late press")
        assert tg.callback_answers[-1][1] == "already answered"


async def test_setup_telegram_walks_through_and_saves(tg: FakeTelegram, tmp_path: Any) -> None:
    import tomllib

    from tui.conftest import type_and_send

    path = tmp_path / "config.toml"
    path.write_text(f'[remote_oversight.telegram]\napi_url = "{tg.url}"\n')
    path.chmod(0o600)
    app = make_app(config_path=str(path))
    async with app.run_test(size=(120, 40)) as pilot:
        assert app.facade.remote is None  # not switched on: nothing runs, nothing is asked
        await type_and_send(pilot, "/setup telegram")
        await until(pilot, lambda: app.screen.query("#tg-token"), what="the wizard")
        box = app.screen.query_one("#tg-token", Input)
        box.value = "wrong:token-000000"
        await pilot.press("enter")
        await until(pilot, lambda: "token validation failed" in status(app), what="a refusal")
        box.value = tg.token
        await pilot.press("enter")
        await until(pilot, lambda: "@milk_test_bot" in help_text(app), what="the bot's name")
        await pilot.press("enter")  # nothing sent yet
        await until(pilot, lambda: "no messages found" in status(app), what="asked to send one")
        tg.send_text(CHAT, "hi bot")
        await pilot.press("enter")
        await until(pilot, lambda: not app.screen.query("#tg-token"), what="the wizard closed")
        await until(pilot, lambda: f"chat_id: {CHAT}" in lines(app), what="the saved line")
        data = tomllib.loads(path.read_text())["remote_oversight"]
        assert data["backend"] == "telegram" and data["telegram"]["chat_id"] == CHAT
        assert data["telegram"]["api_url"] == tg.url
        assert path.stat().st_mode & 0o077 == 0
        assert app.facade.remote is not None
        assert tg.token not in lines(app) and tg.token not in status(app)
        await type_and_send(pilot, "/oversight")
        await until(pilot, lambda: "Telegram oversight on" in lines(app), what="/oversight")


def status(app: Any) -> str:
    if not app.screen.query("#tg-status"):
        return "closed: " + lines(app)
    return str(app.screen.query_one("#tg-status", Static).render())


def help_text(app: Any) -> str:
    return str(app.screen.query_one("#tg-help", Static).render())


async def test_setup_telegram_off_and_on(tg: FakeTelegram, tmp_path: Any) -> None:
    from tui.conftest import type_and_send

    path = tmp_path / "config.json"
    ro = {
        "backend": "telegram",
        "telegram": {"token": tg.token, "chat_id": CHAT, "api_url": tg.url},
    }
    path.write_text(json.dumps({"remote_oversight": ro}))
    path.chmod(0o600)
    app = make_app(config_path=str(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.facade.remote is not None, what="oversight on at start")
        await type_and_send(pilot, "/setup telegram off")
        await until(pilot, lambda: "Telegram oversight disabled" in lines(app), what="off")
        assert app.facade.remote is None
        assert json.loads(path.read_text())["remote_oversight"]["backend"] == ""
        await type_and_send(pilot, "/setup telegram on")
        await until(pilot, lambda: "Telegram oversight enabled" in lines(app), what="on")
        assert app.facade.remote is not None
        assert json.loads(path.read_text())["remote_oversight"]["telegram"]["token"] == tg.token
