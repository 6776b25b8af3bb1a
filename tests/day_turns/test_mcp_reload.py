"""MCP servers as a user changes them, with the reference server (``mcp-server-everything``,
stdio and streamable HTTP): a server added to the config file starts on ``/reload`` or on
``/mcp reconnect NAME`` without a restart (real TUI, Pilot), and per-agent ``mcp_servers``
as in Go (``milk -p``): an agent that names none gets none, a server nobody names never starts."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from peer_missing import needs_peer
from tui.conftest import make_app, type_and_send, until

from milk_tui.config.mcp import McpServerConfig
from milk_tui.testing import mcp_peers as peers
from milk_tui.testing.cli_run import run_milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.tui.widgets.conversation import Conversation

pytestmark = [
    pytest.mark.real_peer,
    needs_peer(peers.everything_available(), "npm mcp-server-everything"),
]


def _write(path: Path, url: str, servers: list[McpServerConfig], **agent: Any) -> None:
    cfg = {
        "agent": "fake",
        "escalation_agent": "fake",
        "agents": [{"name": "fake", "provider": "local", "url": url, "model": "m", **agent}],
        "mcp_servers": [s.model_dump(exclude_defaults=True) for s in servers],
    }
    path.write_text(json.dumps(cfg))


def _lines(app: Any) -> list[str]:
    return [it.text for it in app.main_screen.query_one(Conversation).items]


@pytest.mark.parametrize(
    ("command", "transport"), [("/reload", "stdio"), ("/mcp reconnect every", "http")]
)
async def test_a_server_added_to_the_file_starts_without_a_restart(
    tmp_path: Path, command: str, transport: str
) -> None:
    config = tmp_path / "config.json"
    with FakeOpenAIServer() as srv, contextlib.ExitStack() as stack:
        _write(config, srv.url, [])
        app = make_app(config_path=str(config), demo=False)
        async with app.run_test(size=(120, 40)) as pilot:
            if transport == "http":
                url = stack.enter_context(peers.everything_http())
                server = McpServerConfig(name="every", transport="http", url=url)
            else:
                server = peers.everything()
            _write(config, srv.url, [server])
            await type_and_send(pilot, command)

            def ready() -> bool:
                return any(
                    s.name == "every" and s.state == "ready" for s in app.facade.mcp.statuses()
                )

            await until(pilot, ready, timeout=60)
            assert ready(), app.facade.mcp.statuses()
            said = "\n".join(_lines(app))
            assert "mcp server 'every': " in said and "no such server" not in said, said
            # the next turn is offered the server's tools
            srv.default_reply = FakeReply(text=["done"])
            await type_and_send(pilot, "what tools do you have")
            await until(pilot, lambda: not app.facade.busy, timeout=30)
            assert srv.chat_requests, "the turn never reached the model"
            offered = [t["function"]["name"] for t in srv.chat_requests[-1].json["tools"]]
            assert "mcp__every__echo" in offered


def test_per_agent_mcp_servers_as_in_go(tmp_path: Path, milk_home: Path) -> None:
    """``fake`` names no server while ``other`` names ``every``: fake is offered no MCP tool,
    and ``nobody`` (named by no agent) is never started (its command would leave a file)."""
    started = tmp_path / "nobody-started"
    nobody = McpServerConfig(
        name="nobody",
        command="sh",
        args=["-c", f"touch {started}; exec {peers.EVERYTHING_BIN} stdio"],
    )
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["done"])
        cfg = {
            "agent": "fake",
            "escalation_agent": "other",
            "agents": [
                {"name": "fake", "provider": "local", "url": srv.url, "model": "m"},
                {"name": "other", "provider": "local", "url": srv.url, "model": "m",
                 "mcp_servers": ["every"]},
            ],
            "mcp_servers": [
                s.model_dump(exclude_defaults=True) for s in (peers.everything(), nobody)
            ],
        }  # fmt: skip
        (milk_home / "config.json").write_text(json.dumps(cfg))
        r = run_milk("-p", "use the tool", "--primary", cwd=tmp_path, env=dict(os.environ))
        primary_tools = [t["function"]["name"] for t in srv.chat_requests[-1].json.get("tools", [])]
        r2 = run_milk("-p", "use the tool", "--escalate", cwd=tmp_path, env=dict(os.environ))
        other_tools = [t["function"]["name"] for t in srv.chat_requests[-1].json.get("tools", [])]
    assert r.returncode == 0 and r2.returncode == 0, r.stderr + r2.stderr
    assert not [t for t in primary_tools if t.startswith("mcp__")]
    assert "mcp__every__echo" in other_tools
    assert not [t for t in other_tools if t.startswith("mcp__nobody")]
    assert not started.exists()


async def test_a_reload_gives_the_claude_cli_the_added_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The escalation agent (a Claude CLI) gets the server it names in its next run's
    ``--mcp-config`` after ``reload``, with no restart."""
    from milk_tui.facade.application import start
    from milk_tui.testing.fake_claude_cli import FakeCli

    cli = FakeCli(tmp_path / "fake-cli")
    cli.turns({"text": "first"}, {"text": "second"})
    for k, v in cli.env.items():
        monkeypatch.setenv(k, v)
    config = tmp_path / "config.json"
    claude = {"name": "claude", "provider": "claude-cli", "bin": str(cli.bin)}

    def write(servers: list[McpServerConfig]) -> None:
        cfg = {
            "agent": "demo",
            "escalation_agent": "claude",
            "agents": [{"name": "demo", "provider": "demo"}, {**claude, "mcp_servers": ["every"]}],
            "mcp_servers": [s.model_dump(exclude_defaults=True) for s in servers],
        }
        config.write_text(json.dumps(cfg))

    write([])
    app = start(cwd=str(tmp_path), config_path=str(config))
    try:
        assert (await app.run_turn("before", force="escalate")).ok
        write([peers.everything()])
        result = await app.agents.reload()
        assert "mcp server 'every': added, starting" in result.lines
        assert (await app.run_turn("after", force="escalate")).ok
    finally:
        await app.aclose()
    before, after = cli.calls[-2], cli.calls[-1]
    # milk's own tasks server comes with every run (docs/adr/0040-tasks.md)
    assert before["mcp_servers"] == ["milk-tasks"]
    assert after["mcp_servers"] == ["every", "milk-tasks"]
