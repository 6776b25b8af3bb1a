"""``/server`` in the real TUI (Pilot) with the fake OpenAI server as the started peer:
start/status/stop say one line each, a bad name is one error line, and a server the TUI
started is stopped when it quits (the countdown's look: tests/tui/test_snapshots_servers.py)."""

from __future__ import annotations

from pathlib import Path

from tui.conftest import type_and_send, until

from milk_tui.facade.application import start
from milk_tui.tui.app import MilkApp
from milk_tui.tui.ui_state import UIState
from milk_tui.tui.widgets.conversation import Conversation
from servers.peers import fake_cmd, free_port, group_gone, write_config


def lines(app: MilkApp, kind: str) -> list[str]:
    return [it.text for it in app.main_screen.query_one(Conversation).items if it.kind == kind]


async def test_server_start_status_stop_and_stopped_on_quit(milk_home: Path) -> None:
    port = free_port()
    config = write_config(milk_home, port, fake_cmd(port))
    app = MilkApp(start(cwd=str(milk_home), config_path=config, new=True), ui_state=UIState())
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "/server start nope")
        assert lines(app, "error")[-1] == (
            "/server: no agent named 'nope' (agents with a run_cmd: smol)"
        )
        await type_and_send(pilot, "/server start for smol")
        await until(pilot, lambda: any("is ready after" in n for n in lines(app, "notice")))
        await type_and_send(pilot, "/server status")
        status = lines(app, "notice")[-1].split()
        assert status[:2] == ["smol", "running"]
        pid = int(status[3])
        await type_and_send(pilot, "/server stop")
        await until(pilot, lambda: lines(app, "notice")[-1].startswith("stopped the server"))
        assert lines(app, "notice")[-1] == f"stopped the server of 'smol' (pid {pid})"
        assert group_gone(pid)
        # Started again, it is stopped on quit.
        await type_and_send(pilot, "/server start")
        await until(pilot, lambda: lines(app, "notice")[-1].startswith("the server of 'smol' is"))
        await type_and_send(pilot, "/server status")
        pid = int(lines(app, "notice")[-1].split()[3])
        await app.action_quit()
    assert group_gone(pid)
