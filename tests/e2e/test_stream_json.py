"""``-p --output-format stream-json`` against its documented list of events
(milk_tui/cli/stream_json.py, docs/interfaces.md "Command line"): the doc and the code name
the same events, every event type is in one of the three groups, and each printed type
appears on the wire in a run that produces it — so leaving any one out fails here."""

from __future__ import annotations

import json
import os
import re
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from e2e.conftest import llama_config
from milk_tui.cli import stream_json
from milk_tui.model.events import AnyEvent, parse_event
from milk_tui.testing.cli_run import run_milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall
from milk_tui.testing.llama_server import free_port

REPO = Path(__file__).resolve().parents[2]
WANT = {
    "demo": {"turn_started", "route_decided", "text_delta", "thinking_delta", "need_changed",
             "escalation_started", "escalation_finished", "usage", "state_changed",
             "turn_completed", "notice"},
    "tools": {"thinking_delta", "tool_call", "tool_result", "percept_recorded",
              "percept_deleted", "percept_updated", "permission_decided", "reply_cut", "notice"},
    "failed": {"turn_failed"},
    "truncated": {"reply_truncated"},
    "server": {"server_starting", "server_countdown", "server_ready", "server_stopped"},
    "server_down": {"server_starting", "server_failed"},
    "claude": {"permissions_denied"},
    "workflow": {"workflow_started", "workflow_progress", "workflow_delta",
                 "workflow_questions", "workflow_finished"},
    "tasks": {"tool_call", "tool_result", "tasks_changed"},
}  # fmt: skip
"""The types each run below must print; together, every printed type."""


def stream(*args: str, cwd: Path, code: int | None = 0, **kw: Any) -> list[Any]:
    r = run_milk("-p", *args, "--output-format", "stream-json", cwd=cwd, **kw)
    assert code is None or r.returncode == code, r.stderr
    events = [parse_event(line) for line in r.stdout.splitlines()]
    assert "session_changed" not in {e.type for e in events}
    return events


def types(events: list[Any]) -> set[str]:
    return {e.type for e in events}


def doc_group(label: str) -> tuple[str, ...]:
    """The backticked names after ``label`` in the stream-json item of interfaces.md."""
    text = (REPO / "docs" / "interfaces.md").read_text()
    item = text[text.index("- `--output-format stream-json` prints") :]
    item = item[: item.index("\n- ")]
    part = re.split(r"\n\s*(?:Printed|Not printed|Only in the TUI|Code)\b", "\n" + item)
    heads = re.findall(r"\n\s*(Printed|Not printed|Only in the TUI|Code)\b", "\n" + item)
    body = dict(zip(heads, part[1:], strict=True))[label]
    body = re.sub(r"—.*", "", body, flags=re.S) if label == "Not printed" else body
    body = re.sub(r"\([^)]*\)", "", body)
    return tuple(re.findall(r"`([a-z_]+)`", body))


def test_the_doc_lists_the_groups_the_code_has() -> None:
    assert doc_group("Printed") == stream_json.PRINTED
    assert doc_group("Not printed") == stream_json.NOT_PRINTED
    assert doc_group("Only in the TUI") == stream_json.TUI_ONLY


def test_every_event_type_is_in_exactly_one_group() -> None:
    every = [c.type for c in typing.get_args(AnyEvent)]
    groups = [*stream_json.PRINTED, *stream_json.NOT_PRINTED, *stream_json.TUI_ONLY]
    assert sorted(groups) == sorted(every)


def test_an_escalation_on_the_demo_agents(tmp_path: Path) -> None:
    events = stream("this one is hard", "--demo", cwd=tmp_path)  # the demo primary hands it on
    assert WANT["demo"] <= types(events), sorted(types(events))
    assert events[0].type == "turn_started" and events[-1].type == "turn_completed"


def test_primary_and_escalate_override_the_router(tmp_path: Path) -> None:
    """The router sends a refactoring to the escalation agent and keeps a greeting with the
    primary; the flags win (the demo primary may still hand off by itself afterwards)."""
    assert [e.target for e in stream("please refactor entire codebase", "--demo", cwd=tmp_path)
            if e.type == "route_decided"] == ["escalation"]  # fmt: skip
    kept = stream("please refactor entire codebase", "--demo", "--primary", cwd=tmp_path)
    (route,) = [e for e in kept if e.type == "route_decided"]
    assert route.target == "primary" and route.agent_name == "demo-local"
    sent = stream("hello there", "--demo", "--escalate", "--new", cwd=tmp_path)
    (route,) = [e for e in sent if e.type == "route_decided"]
    assert route.target == "escalation" and "escalation_started" in types(sent)
    assert [e.target for e in stream("hello there", "--demo", cwd=tmp_path)
            if e.type == "route_decided"] == ["primary"]  # fmt: skip


@pytest.fixture
def llama(milk_home: Path) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        (milk_home / "config.toml").write_text(llama_config(srv.url))
        yield srv


def test_tools_memory_a_refused_write_and_a_cut_reply(llama, tmp_path: Path) -> None:
    def call(name: str, args: dict[str, Any], cid: str) -> FakeToolCall:
        return FakeToolCall(name, json.dumps(args), id=cid)

    llama.enqueue(
        FakeReply(
            reasoning=["let me think"],
            tool_calls=[
                call("record_memory", {"content": "the user indents with tabs"}, "c1"),
                call("write_file", {"path": "x.txt", "content": "hi"}, "c3"),
            ],
        ),
        FakeReply(tool_calls=[call("forget_memory", {"id": "#1"}, "c4")]),
        FakeReply(text=["Done. ", *["this passage keeps on coming back; "] * 12]),
    )
    added = run_milk("memory", "add", "an old fact to forget", cwd=tmp_path)  # fact #1
    assert added.returncode == 0, added.stderr
    events = stream("tidy up", "--primary", cwd=tmp_path)
    assert WANT["tools"] <= types(events), sorted(types(events))
    (decided,) = [e for e in events if e.type == "permission_decided"]
    assert (decided.tool_name, decided.allowed, decided.how) == ("write_file", False, "headless")
    assert not (tmp_path / "x.txt").exists()
    (cut,) = [e for e in events if e.type == "reply_cut"]
    assert cut.passage.strip().startswith("this passage")
    updated = [e for e in events if e.type == "percept_updated"]  # the session end's decay
    assert updated and updated[0].fields["weight"] < 0.7


def test_the_task_tools_of_an_api_agent(llama, tmp_path: Path) -> None:
    """The primary creates a task, completes one by a 4-character prefix, lists them; no
    question is asked (milk's own state) and each change is a ``tasks_changed`` line."""
    added = run_milk("tasks", "add", "--global", "--json", "ship the release", cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    ship = json.loads(added.stdout)["id"]

    def call(name: str, args: dict[str, Any], cid: str) -> FakeToolCall:
        return FakeToolCall(name, json.dumps(args), id=cid)

    llama.enqueue(
        FakeReply(tool_calls=[call("create_task", {"text": "write the notes"}, "t1"),
                              call("complete_task", {"id": ship[:4]}, "t2")]),
        FakeReply(tool_calls=[call("list_tasks", {}, "t3")]),
        FakeReply(text=["Planned."]),
    )  # fmt: skip
    events = stream("plan the release", "--primary", cwd=tmp_path)
    assert WANT["tasks"] <= types(events), sorted(types(events))
    assert "permission_decided" not in types(events)
    results = {e.call_id: e for e in events if e.type == "tool_result"}
    assert not [r for r in results.values() if r.is_error], results
    rows = json.loads(results["t3"].content)
    assert [(r["text"], r["status"], r["scope"]) for r in rows] == [
        ("write the notes", "open", "session"), ("ship the release", "done", "global")
    ]  # fmt: skip
    last = [e for e in events if e.type == "tasks_changed"][-1]
    assert [t.text for t in last.tasks] == ["write the notes", "ship the release"]
    listed = run_milk("tasks", "list", "--json", cwd=tmp_path)
    assert json.loads(listed.stdout) == rows  # the folder's session is the one the run used


def test_a_failed_turn(tmp_path: Path, milk_home: Path) -> None:
    (milk_home / "config.toml").write_text(
        'agent = "llama"\nescalation_agent = "deep"\n'
        '[[agents]]\nname = "llama"\nprovider = "local"\nurl = "http://127.0.0.1:9"\n'
        '[[agents]]\nname = "deep"\nprovider = "local"\nurl = "http://127.0.0.1:7"\n'
    )
    events = stream("hello there", cwd=tmp_path, code=1)
    assert WANT["failed"] <= types(events)
    assert events[-1].type == "turn_failed" and events[-1].error


def test_a_reply_cut_at_its_token_limit(tmp_path: Path, milk_home: Path) -> None:
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["Once upon a ti"], finish_reason="length")
        (milk_home / "config.toml").write_text(
            'agent = "llama"\nescalation_agent = "llama"\n'
            f'[[agents]]\nname = "llama"\nprovider = "local"\nurl = "{srv.url}"\n'
            "max_tokens = 16\n"
        )
        events = stream("tell me a story", "--primary", cwd=tmp_path)
    assert WANT["truncated"] <= types(events)
    (cut,) = [e for e in events if e.type == "reply_truncated"]
    assert (cut.finish_reason, cut.max_tokens) == ("length", 16)


def run_cmd_config(home: Path, run_cmd: str, port: int) -> None:
    (home / "config.toml").write_text(
        'agent = "smol"\nescalation_agent = "demo"\n'
        f'[[agents]]\nname = "smol"\nprovider = "local"\nurl = "http://127.0.0.1:{port}"\n'
        f"run_cmd = {json.dumps(run_cmd)}\n"
        '[[agents]]\nname = "demo"\nprovider = "demo"\n'
    )


def test_a_server_started_on_demand(tmp_path: Path, milk_home: Path) -> None:
    port = free_port()
    # A server that takes a moment: the countdown shows at least once.
    serve = f"sleep 1; exec {os.sys.executable} -m milk_tui.testing.fake_openai --port {port}"
    run_cmd_config(milk_home, serve, port)
    events = stream("hello there", "--primary", cwd=tmp_path)
    order = [e.type for e in events if e.type.startswith("server_")]
    assert order[0] == "server_starting" and order[-1] == "server_stopped"
    assert WANT["server"] <= set(order)


def test_a_server_that_does_not_start(tmp_path: Path, milk_home: Path) -> None:
    run_cmd_config(milk_home, "echo 'no model' >&2; exit 7", free_port())
    events = stream("hello there", "--primary", cwd=tmp_path, code=None)  # the demo answers
    assert WANT["server_down"] <= types(events)
    (failed,) = [e for e in events if e.type == "server_failed"]
    assert "exited with code 7" in failed.error


@pytest.mark.real_peer
def test_a_refused_claude_tool(
    claude_bin: str, real_claude_env: dict[str, str], fake_anthropic: Any, tmp_path: Path
) -> None:
    from milk_tui.testing.fake_anthropic import Reply

    config = tmp_path / "config.json"
    config.write_text(json.dumps({"agents": [{"name": "claude", "provider": "claude-cli",
                                              "bin": claude_bin}]}))  # fmt: skip
    env = {**os.environ, **real_claude_env, "MILK_CONFIG": str(config)}
    fetch = Reply.tool("WebFetch", {"url": "http://127.0.0.1:9/page", "prompt": "summarise"})
    fake_anthropic.push(fetch, Reply.text("Could not fetch."))
    events = stream("fetch the page", "--escalate", cwd=tmp_path, env=env)
    assert WANT["claude"] <= types(events)
    (denied,) = [e for e in events if e.type == "permissions_denied"]
    assert [d.tool_name for d in denied.denials] == ["WebFetch"]


def test_a_dev_workflow(llama, tmp_path: Path) -> None:
    llama.enqueue(
        FakeReply(text=["1. Which file name?"]),
        FakeReply(text=["## Spec\nsay hi\n## Sprint 1\nsay hi"]),
        FakeReply(text=["said hi"]),
        FakeReply(text=["fine\ngood_to_go"]),
    )
    r = run_milk("workflow", "dev", "say hi", "--designer", "llama", "--generator", "llama",
                 "--evaluator", "llama", "--output-format", "stream-json", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    events = [parse_event(line) for line in r.stdout.splitlines()]
    assert WANT["workflow"] <= types(events), sorted(types(events))
    assert "questions were skipped" in r.stderr


def test_the_runs_above_cover_every_printed_type() -> None:
    assert set().union(*WANT.values()) == set(stream_json.PRINTED)
