"""Path first for every backend: an MCP tool whose schema names a path (a real server that
writes wherever it is told) and the Claude CLI's own permission questions (``file_path``,
``path``, ``notebook_path``) are decided like the built-in tools: a grant of the tool,
``--allow-tools`` or skip-permissions never covers a path outside the folder."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from milk_tui.agents.base import AgentRequest
from milk_tui.agents.claude_control import answer_control
from milk_tui.agents.claude_settings import allow_rules
from milk_tui.facade.application import Application, start
from milk_tui.model import events as ev
from milk_tui.testing import mcp_peers as peers
from milk_tui.testing.cli_run import run_milk
from milk_tui.testing.fake_openai import FakeOpenAIServer

from .rig import Layout, answering, call, config, layout, of, results, script


@pytest.fixture
def lay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    return layout(tmp_path, monkeypatch)


@pytest.mark.real_peer
def test_print_mode_a_granted_mcp_tool_may_not_write_outside(lay: Layout, tmp_path: Path) -> None:
    home = tmp_path / "milk-home"
    env = {**os.environ, "MILK_HOME": str(home), "MILK_CONFIG": str(home / "config.json")}
    with FakeOpenAIServer() as srv:
        files = peers.own("files", "files")
        (home / "config.json").write_text(
            json.dumps(
                {
                    "agent": "fake",
                    "escalation_agent": "fake",
                    "agents": [{"name": "fake", "provider": "local", "url": srv.url, "model": "m"}],
                    "mcp_servers": [files.model_dump(exclude_defaults=True)],
                }
            )
        )
        tool = "mcp__files__write_note"
        script(
            srv,
            call(tool, "out", path="../outside/n.txt", text="HACK"),
            call(tool, "link", path="link/n2.txt", text="HACK"),
            call(tool, "in", path="in.txt", text="inside"),
        )
        assert run_milk("permissions", "grant", tool, cwd=lay.proj, env=env).returncode == 0
        r = run_milk("-p", "notes", "--primary", "--allow-tools", cwd=lay.proj, env=env)
        told = results(srv)
    assert r.returncode == 0, r.stderr
    assert not (lay.outside / "n.txt").exists() and not (lay.outside / "n2.txt").exists()
    assert (lay.proj / "in.txt").read_text() == "inside"  # the server does write: inside, allowed
    for cid in ("out", "link"):
        assert told[cid].startswith(f"permission denied: {tool} on "), told[cid]
        assert "outside the working folder" in told[cid]


def can_use_tool(tool: str, tool_input: dict[str, Any], rule: str) -> dict[str, Any]:
    """A control request as the real CLI sends it (claude_control.py)."""
    return {
        "type": "control_request",
        "request_id": "r1",
        "request": {
            "subtype": "can_use_tool",
            "tool_name": tool,
            "input": tool_input,
            "tool_use_id": "t1",
            "permission_suggestions": [
                {
                    "type": "addRules",
                    "behavior": "allow",
                    "rules": [{"toolName": tool, "ruleContent": rule}],
                }
            ],
        },
    }


async def answer(app: Application, cwd: Path, req: dict[str, Any]) -> dict[str, Any]:
    dispatcher = app.runtime.dispatcher
    request = AgentRequest(
        slot="escalation", prompt="p", cwd=str(cwd), ask_permission=dispatcher.permissions.ask
    )
    reply = await answer_control("claude", req, request, {})
    return dict(reply["response"]["response"])


async def test_claude_cli_questions_are_decided_path_first(lay: Layout) -> None:
    app = start(
        cwd=str(lay.proj), config=config("http://127.0.0.1:9/v1"), permission_policy="allow"
    )
    app.permissions.grant(["Write", "Read"])
    try:
        outside = await answer(
            app, lay.proj, can_use_tool("Write", {"file_path": "link/x.txt", "content": "x"}, "")
        )
        home = await answer(app, lay.proj, can_use_tool("Read", {"file_path": "~/secret"}, ""))
        inside = await answer(
            app, lay.proj, can_use_tool("Write", {"file_path": "in.txt", "content": "x"}, "")
        )
    finally:
        await app.aclose()
    assert outside["behavior"] == "deny" and str(lay.outside / "x.txt") in outside["message"]
    assert home["behavior"] == "deny" and str(lay.outside / "secret") in home["message"]
    assert inside["behavior"] == "allow"


async def test_always_on_a_claude_question_outside_stores_a_milk_grant_of_that_path(
    lay: Layout,
) -> None:
    app = start(cwd=str(lay.proj), config=config("http://127.0.0.1:9/v1"), permission_policy="ask")
    events: list[Any] = []
    app.add_listener(events.append)
    answers = iter([{"allow": True, "always": True}, {"allow": False}])
    answering(app, lambda q: next(answers))
    req = can_use_tool("Edit", {"file_path": "../outside/a.txt"}, "//tmp/**")
    try:
        first = await answer(app, lay.proj, req)
        again = await answer(app, lay.proj, req)
        other = await answer(app, lay.proj, can_use_tool("Edit", {"file_path": "../outside/b"}, ""))
    finally:
        await app.aclose()
    assert [first["behavior"], again["behavior"], other["behavior"]] == ["allow", "allow", "deny"]
    (asked, _) = of(events, ev.PermissionRequested)
    assert asked.always_rules == () and asked.grant == f"Edit:{lay.outside / 'a.txt'}"
    assert app.permissions.show().tools == (f"Edit:{lay.outside / 'a.txt'}",)
    assert allow_rules(str(lay.proj)) == []  # nothing widened in the CLI's own settings
