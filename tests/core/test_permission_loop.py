"""Permissions in the one tool loop, end to end: the fake OpenAI server scripts a write_file
call, a test tool box writes for real, the engine's policy decides."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.facade.application import Application, TurnResult, start
from milk_tui.model import events as ev
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall
from milk_tui.testing.permission_tools import add_test_tools
from milk_tui.testing.waits import until


@pytest.fixture
def with_write_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    add_test_tools(monkeypatch)


@pytest.fixture
def srv() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as s:
        yield s


def open_app(srv: FakeOpenAIServer, cwd: Path, policy: str) -> tuple[Application, list[Any]]:
    cfg = MilkConfig(
        agent="fake",
        escalation_agent="fake",
        agents=[AgentConfig(name="fake", provider="local", url=srv.url, model="m")],
    )
    app = start(cwd=str(cwd), config=cfg, permission_policy=policy)  # type: ignore[arg-type]
    events: list[Any] = []
    app.add_listener(events.append)
    return app, events


def script_write(srv: FakeOpenAIServer, path: str = "out.txt") -> None:
    call = FakeToolCall("write_file", json.dumps({"path": path, "content": "hello\n"}), id="w1")
    srv.enqueue(FakeReply(tool_calls=[call]), FakeReply(text=["done"]))


def tool_message(srv: FakeOpenAIServer) -> str:
    """The result the model got back (the OpenAI wire wraps it as output or error)."""
    msgs = srv.chat_requests[-1].json["messages"]
    (tool,) = [m for m in msgs if m["role"] == "tool"]
    body = json.loads(tool["content"])
    return str(body.get("output", body.get("error")))


async def one_turn(app: Application, prompt: str) -> TurnResult:
    """Run one primary turn and close the application."""
    try:
        return await app.run_turn(prompt, force="primary")
    finally:
        await app.aclose()


def of(events: list[Any], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


pytestmark = pytest.mark.usefixtures("with_write_tool")


async def test_headless_without_allow_tools_denies_and_the_turn_completes(
    srv: FakeOpenAIServer, tmp_path: Path
) -> None:
    app, events = open_app(srv, tmp_path, "deny")
    script_write(srv)
    out = await one_turn(app, "write it")
    assert out.ok and out.text == "done"
    assert not (tmp_path / "out.txt").exists()
    assert tool_message(srv).startswith("permission denied: write_file needs the user's permission")
    (decided,) = of(events, ev.PermissionDecided)
    assert (decided.tool_name, decided.allowed, decided.how) == ("write_file", False, "headless")
    (result,) = of(events, ev.ToolResult)
    assert result.is_error and not of(events, ev.PermissionRequested)


async def test_allow_tools_runs_the_call(srv: FakeOpenAIServer, tmp_path: Path) -> None:
    app, events = open_app(srv, tmp_path, "allow")
    script_write(srv)
    assert (await one_turn(app, "write it")).ok
    assert (tmp_path / "out.txt").read_text() == "hello\n"
    assert tool_message(srv).startswith("wrote out.txt")  # the built-in tool adds the size
    assert [(d.allowed, d.how) for d in of(events, ev.PermissionDecided)] == [(True, "skip")]


async def test_a_stored_grant_allows_headless(srv: FakeOpenAIServer, tmp_path: Path) -> None:
    app, events = open_app(srv, tmp_path, "deny")
    app.permissions.grant(["write_file"])
    script_write(srv)
    assert (await one_turn(app, "write it")).ok
    assert (tmp_path / "out.txt").exists()
    assert [(d.allowed, d.how) for d in of(events, ev.PermissionDecided)] == [(True, "grant")]


async def test_always_persists_and_the_next_turn_does_not_ask(
    srv: FakeOpenAIServer, tmp_path: Path
) -> None:
    app, events = open_app(srv, tmp_path, "ask")

    def answer(e: ev.BusEvent) -> None:
        if isinstance(e, ev.PermissionRequested):
            app.answer_permission(e.request_id, True, always=True)

    app.add_listener(answer)
    script_write(srv, "one.txt")
    script_write(srv, "two.txt")
    try:
        assert (await app.run_turn("write one", force="primary")).ok
        assert (await app.run_turn("write two", force="primary")).ok
    finally:
        await app.aclose()
    assert (tmp_path / "one.txt").exists() and (tmp_path / "two.txt").exists()
    (asked,) = of(events, ev.PermissionRequested)
    assert asked.effect == "write" and asked.preview.startswith("--- /dev/null")
    hows = [d.how for d in of(events, ev.PermissionDecided)]
    assert hows == ["always", "grant"]
    assert app.permissions.show().tools == ("write_file",)


async def test_no_with_a_reason_reaches_the_model(srv: FakeOpenAIServer, tmp_path: Path) -> None:
    app, events = open_app(srv, tmp_path, "ask")
    app.add_listener(
        lambda e: (
            app.answer_permission(e.request_id, False, reason="use notes.md instead")
            if isinstance(e, ev.PermissionRequested)
            else None
        )
    )
    script_write(srv)
    assert (await one_turn(app, "write it")).ok
    assert not (tmp_path / "out.txt").exists()
    assert tool_message(srv) == "permission denied: the user said no: use notes.md instead"


async def test_a_path_outside_the_folder_asks_even_for_a_read(
    srv: FakeOpenAIServer, tmp_path: Path
) -> None:
    (tmp_path / "secret.txt").write_text("s3cret")
    cwd = tmp_path / "proj"
    cwd.mkdir()
    app, events = open_app(srv, cwd, "deny")
    srv.enqueue(
        FakeReply(tool_calls=[FakeToolCall("peek", '{"path": "../secret.txt"}', id="r")]),
        FakeReply(text=["ok"]),
    )
    assert (await one_turn(app, "read it")).ok
    told = tool_message(srv)
    assert told.startswith("permission denied: peek on ../secret.txt (")
    assert "outside the working folder, needs the user's permission" in told
    (decided,) = of(events, ev.PermissionDecided)
    assert (decided.tool_name, decided.how) == ("peek", "headless")


async def test_cancelling_while_asking_denies_and_cancels_the_turn(
    srv: FakeOpenAIServer, tmp_path: Path
) -> None:
    app, events = open_app(srv, tmp_path, "ask")
    script_write(srv)
    try:
        task = app.submit("write it", force="primary")
        assert task is not None
        await until(None, lambda: of(events, ev.PermissionRequested), what="the permission asked")
        assert app.cancel()
        out = await asyncio.wait_for(task, 5)
    finally:
        await app.aclose()
    assert out.cancelled and not (tmp_path / "out.txt").exists()
    (decided,) = of(events, ev.PermissionDecided)
    assert (decided.allowed, decided.how) == (False, "cancelled")


async def test_a_read_inside_the_folder_runs_without_a_decision(
    srv: FakeOpenAIServer, tmp_path: Path
) -> None:
    (tmp_path / "in.txt").write_text("inside")
    app, events = open_app(srv, tmp_path, "deny")
    srv.enqueue(
        FakeReply(tool_calls=[FakeToolCall("peek", '{"path": "in.txt"}', id="r")]),
        FakeReply(text=["ok"]),
    )
    assert (await one_turn(app, "read it")).ok
    assert tool_message(srv) == "inside" and not of(events, ev.PermissionDecided)


@pytest.mark.parametrize(("flags", "allowed"), [((), False), (("--allow-tools",), True)])
async def test_print_mode_stream_json_carries_the_decision(
    srv: FakeOpenAIServer,
    tmp_path: Path,
    milk_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    flags: tuple[str, ...],
    allowed: bool,
) -> None:
    import io

    from milk_tui.cli import EXIT_OK, _print_turn, build_parser

    (milk_home / "config.toml").write_text(
        f'agent = "fake"\nescalation_agent = "fake"\n[[agents]]\nname = "fake"\n'
        f'provider = "local"\nurl = "{srv.url}"\nmodel = "m"\n'
    )
    monkeypatch.chdir(tmp_path)
    script_write(srv)
    args = build_parser().parse_args(
        ["-p", "write it", "--primary", "--output-format", "stream-json", *flags]
    )
    out, err = io.StringIO(), io.StringIO()
    assert await _print_turn(args, out, err) == EXIT_OK
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    (decided,) = [e for e in lines if e["type"] == "permission_decided"]
    assert decided["tool_name"] == "write_file" and decided["allowed"] is allowed
    assert decided["how"] == ("skip" if allowed else "headless")
    assert (tmp_path / "out.txt").exists() is allowed
    assert lines[-1]["type"] == "turn_completed"
