"""``/mcp`` in the real TUI: the screen lists real servers with their state, its actions
work, and a snapshot pins how it looks."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any, cast

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from milk_tui.agents.mcp import connection as mcp_connection
from milk_tui.config.mcp import McpServerConfig
from milk_tui.config.settings import MilkConfig
from milk_tui.testing import mcp_peers as peers
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall
from milk_tui.tui.app import MilkApp
from milk_tui.tui.screens.mcp_screen import McpScreen
from milk_tui.tui.screens.permission_modal import PermissionModal
from tui.conftest import fake_agent_config, make_app, settle, type_and_send
from tui.snapshot_base import SnapshotCase, on_screen, send, until

pytestmark = pytest.mark.real_peer

SERVERS = [peers.own("calc"), peers.own("broken", "exit"), peers.own("spare", enabled=False)]


def mcp_app() -> MilkApp:
    return make_app(config=MilkConfig(mcp_servers=SERVERS))


def settled(app: Any) -> bool:
    states = [s.state for s in cast(MilkApp, app).facade.mcp.statuses()]
    return "starting" not in states


def rows(app: MilkApp) -> list[list[str]]:
    table = app.screen.query_one(DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_the_screen_lists_servers_and_acts_on_them() -> None:
    app = mcp_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await until(settled, "servers settled")(pilot)
        await type_and_send(pilot, "/mcp")
        await on_screen(McpScreen)(pilot)
        await pilot.pause()
        assert rows(app) == [
            ["calc", "stdio", "ready, 5 tools"],
            ["broken", "stdio", "down: the process exited; stderr: milk-test: refusing to start"],
            ["spare", "stdio", "disabled"],
        ]
        await pilot.press("t")
        detail = str(app.screen.query_one("#mcp-detail", Static).render())
        assert detail.splitlines()[0] == "mcp__calc__add  Add two integers."
        await pilot.press("d")
        await until(lambda a: rows(cast(MilkApp, a))[0][2] == "disabled", "calc disabled")(pilot)
        await pilot.press("e")
        await until(lambda a: rows(cast(MilkApp, a))[0][2].startswith("ready"), "calc back")(pilot)
        await pilot.press("escape")
        assert not isinstance(app.screen, McpScreen)


async def test_the_warning_of_a_dead_server_is_a_notice_in_the_transcript(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = make_app(config=MilkConfig(mcp_servers=[peers.own("broken", "exit")]))
    seen: list[str] = []
    app.facade.add_listener(lambda e: seen.append(getattr(e, "message", "")))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(settled, "servers settled")(pilot)
        await pilot.pause()
    assert [m for m in seen if "mcp server" in m] == [
        "mcp server 'broken' is down: the process exited; stderr: milk-test: refusing to start"
    ]


class TestMcpSnapshot(SnapshotCase):
    @pytest.fixture(autouse=True)
    def _no_retry(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """The broken server is retried 2 s after it fails, as "starting" again: on a loaded
        machine the picture was taken then.  The picture is of the screen, not the retry."""
        monkeypatch.setattr(mcp_connection, "BACKOFF_FIRST_S", 3600.0)

    def test_mcp_screen(self) -> None:
        async def tools(pilot: Pilot[Any]) -> None:
            await pilot.press("t")
            await pilot.pause()

        assert self.shot(
            until(settled, "servers settled"), send("/mcp"), on_screen(McpScreen), tools,
            app=mcp_app(),
        )  # fmt: skip


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_the_primary_calls_an_mcp_tool_in_the_tui_after_asking(
    transport: str, tmp_path: Path
) -> None:
    with contextlib.ExitStack() as stack:
        srv = stack.enter_context(FakeOpenAIServer())
        if transport == "http":
            url = stack.enter_context(peers.own_http())
            server = McpServerConfig(name="calc", url=url)
        else:
            server = peers.own("calc")
        call = FakeToolCall("mcp__calc__add", json.dumps({"a": 2, "b": 40}), id="m1")
        srv.enqueue(FakeReply(tool_calls=[call]), FakeReply(text=["the sum is 42"]))
        cfg = fake_agent_config(srv.url, mcp_servers=[server])
        app = make_app(config=cfg, demo=False, cwd=str(tmp_path))
        async with app.run_test(size=(120, 40)) as pilot:
            await until(settled, "servers settled")(pilot)
            app.facade.submit("add them", force="primary")
            await until(lambda a: isinstance(a.screen, PermissionModal), "asked")(pilot)
            await pilot.press("y")
            await settle(pilot, app)
        msgs = srv.chat_requests[-1].json["messages"]
        (tool,) = [m for m in msgs if m["role"] == "tool"]
        assert json.loads(tool["content"]) == {"output": "42"}
        assert app.runtime.dispatcher.session.history[-1].content == "the sum is 42"


async def test_with_no_servers_the_screen_says_how_to_add_one() -> None:
    app = make_app(config=MilkConfig())
    async with app.run_test(size=(80, 24)) as pilot:
        await type_and_send(pilot, "/mcp")
        await on_screen(McpScreen)(pilot)
        await pilot.pause()
        assert rows(app) == []
        detail = str(app.screen.query_one("#mcp-detail", Static).render())
        assert detail.startswith("No MCP servers configured. Add [[mcp_servers]]")
        title = app.screen.query_one(".mcp-title", Static)
        assert title.size.height >= 2  # the key list wraps at 80 columns instead of being cut
