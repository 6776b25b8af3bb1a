"""``milk-tui -p`` as a user runs it: a real subprocess, the fake OpenAI server scripted to
call an MCP tool, real MCP servers behind it."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from peer_missing import needs_peer

from milk_tui.config.mcp import McpServerConfig
from milk_tui.testing import mcp_peers as peers
from milk_tui.testing.cli_run import run_milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall

pytestmark = pytest.mark.real_peer


@pytest.fixture
def srv() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as s:
        yield s


def write_config(home: Path, srv: FakeOpenAIServer, servers: list[McpServerConfig]) -> None:
    cfg = {
        "agent": "fake",
        "escalation_agent": "fake",
        "agents": [{"name": "fake", "provider": "local", "url": srv.url, "model": "m"}],
        "mcp_servers": [s.model_dump(exclude_defaults=True) for s in servers],
    }
    (home / "config.json").write_text(json.dumps(cfg))


def script_call(srv: FakeOpenAIServer, name: str, args: dict[str, object]) -> None:
    call = FakeToolCall(name, json.dumps(args), id="c1")
    srv.enqueue(FakeReply(tool_calls=[call]), FakeReply(text=["done"]))


def tool_result(srv: FakeOpenAIServer) -> dict[str, str]:
    msgs = srv.chat_requests[-1].json["messages"]
    (tool,) = [m for m in msgs if m["role"] == "tool"]
    return dict(json.loads(tool["content"]))


def milk(home: Path, cwd: Path, *args: str) -> tuple[int, str, str]:
    env = {**os.environ, "MILK_HOME": str(home), "MILK_CONFIG": str(home / "config.json")}
    r = run_milk("-p", "use the tool", "--primary", *args, cwd=cwd, env=env)
    return r.returncode, r.stdout, r.stderr


@needs_peer(
    peers.everything_available(),
    "the reference MCP server (npm @modelcontextprotocol/server-everything)",
)
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_primary_calls_a_reference_server_tool(
    srv: FakeOpenAIServer, milk_home: Path, tmp_path: Path, transport: str
) -> None:
    with contextlib.ExitStack() as stack:
        if transport == "http":
            url = stack.enter_context(peers.everything_http())
            server = McpServerConfig(name="every", transport="http", url=url)
        else:
            server = peers.everything()
        write_config(milk_home, srv, [server])
        check_echo(srv, milk_home, tmp_path)


def check_echo(srv: FakeOpenAIServer, milk_home: Path, tmp_path: Path) -> None:
    script_call(srv, "mcp__every__echo", {"message": "from the model"})
    code, out, err = milk(milk_home, tmp_path, "--allow-tools")
    assert code == 0, err
    assert out.strip() == "done" and err == ""
    assert tool_result(srv) == {"output": "Echo: from the model"}
    offered = [t["function"]["name"] for t in srv.chat_requests[0].json["tools"]]
    assert "mcp__every__echo" in offered and "read_file" in offered


def test_without_a_grant_the_call_is_denied_headless(
    srv: FakeOpenAIServer, milk_home: Path, tmp_path: Path
) -> None:
    write_config(milk_home, srv, [peers.own("calc")])
    script_call(srv, "mcp__calc__add", {"a": 1, "b": 2})
    code, out, err = milk(milk_home, tmp_path)
    assert code == 0, err
    error = tool_result(srv)["error"]
    assert "permissions grant mcp__calc__add" in error


def test_a_dead_server_is_one_warning_and_the_turn_goes_on(
    srv: FakeOpenAIServer, milk_home: Path, tmp_path: Path
) -> None:
    write_config(milk_home, srv, [peers.own("calc"), peers.own("broken", "exit")])
    script_call(srv, "mcp__calc__add", {"a": 40, "b": 2})
    code, out, err = milk(milk_home, tmp_path, "--allow-tools")
    assert code == 0, err
    assert tool_result(srv) == {"output": "42"}
    lines = err.strip().splitlines()
    assert lines == [
        "milk-tui: mcp server 'broken' is down: the process exited; "
        "stderr: milk-test: refusing to start"
    ]
    offered = [t["function"]["name"] for t in srv.chat_requests[0].json["tools"]]
    assert not [n for n in offered if n.startswith("mcp__broken")]
