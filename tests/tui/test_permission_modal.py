"""The permission modal's answers (y, a, n with a reason, Escape, Ctrl+C during a turn) and
the /permissions and /skip-permissions commands."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from milk_tui.agents.base import PermissionAnswer, PermissionQuestion
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall
from milk_tui.testing.permission_tools import add_test_tools
from milk_tui.tui.screens.permission_modal import PermissionModal
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.status_line import StatusLine
from tui.conftest import fake_agent_config, make_app, settle, type_and_send, until

WRITE_Q = PermissionQuestion(
    "llama", "write_file", {"path": "a.txt", "content": "x\n"}, effect="write"
)


async def ask(pilot: Any, app: Any) -> asyncio.Task[PermissionAnswer]:
    task = asyncio.create_task(app.runtime.dispatcher._ask_permission(WRITE_Q))
    for _ in range(100):
        await pilot.pause()
        if isinstance(app.screen, PermissionModal):
            break
    assert isinstance(app.screen, PermissionModal)
    return task


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        (["y"], PermissionAnswer(True)),
        (["escape"], PermissionAnswer(False, reason="the user said no")),
        (["n"], PermissionAnswer(False, reason="the user said no")),
    ],
)
async def test_keys_answer_the_question(keys: list[str], expected: PermissionAnswer) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        task = await ask(pilot, app)
        await pilot.press(*keys)
        assert await asyncio.wait_for(task, 2) == expected


async def test_always_stores_a_grant_and_the_next_question_is_not_asked() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        task = await ask(pilot, app)
        await pilot.press("a")
        assert await asyncio.wait_for(task, 2) == PermissionAnswer(True, always=True)
        assert app.facade.permissions.show().tools == ("write_file",)
        answer = await app.runtime.dispatcher._ask_permission(WRITE_Q)
        assert answer.allow and not isinstance(app.screen, PermissionModal)


async def test_no_with_a_reason_typed_in_the_field() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        task = await ask(pilot, app)
        await pilot.click("#reason")
        await pilot.press(*"use b.txt", "enter")
        answer = await asyncio.wait_for(task, 2)
        assert answer == PermissionAnswer(False, reason="the user said no: use b.txt")


async def test_ctrl_c_while_asking_denies_and_cancels_the_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_test_tools(monkeypatch)
    with FakeOpenAIServer() as srv:
        call = FakeToolCall("write_file", json.dumps({"path": "o.txt", "content": "x"}), id="w")
        srv.enqueue(FakeReply(tool_calls=[call]), FakeReply(text=["done"]))
        cfg = fake_agent_config(srv.url)
        app = make_app(config=cfg, demo=False, cwd=str(tmp_path))
        async with app.run_test(size=(120, 40)) as pilot:
            app.facade.submit("write o.txt", force="primary")
            await until(pilot, lambda: isinstance(app.screen, PermissionModal))
            await pilot.press("ctrl+c")
            await settle(pilot, app)
            assert not app.facade.busy and not isinstance(app.screen, PermissionModal)
            assert app.runtime.dispatcher.session.history == []  # the turn was cancelled
        assert not (tmp_path / "o.txt").exists()
        assert len(srv.chat_requests) == 1  # the model never got a result: the turn stopped


async def test_permissions_command_lists_and_revokes() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.facade.permissions.grant(["bash", "write_file"])
        await type_and_send(pilot, "/permissions")
        lines = [it.text for it in app.main_screen.query_one(Conversation).items]
        assert any("bash, write_file" in t for t in lines)
        await type_and_send(pilot, "/permissions revoke bash")
        assert app.facade.permissions.show().tools == ("write_file",)


async def test_skip_permissions_shows_in_the_status_line_and_allows() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        status = app.main_screen.query_one(StatusLine)
        await type_and_send(pilot, "/skip-permissions on")
        assert "skip-permissions" in status.plain
        answer = await app.runtime.dispatcher._ask_permission(WRITE_Q)
        assert answer.allow and not isinstance(app.screen, PermissionModal)
        await type_and_send(pilot, "/skip-permissions off")
        assert "skip-permissions" not in status.plain
