"""The REAL Claude CLI keeps milk's task list: through the tasks MCP server milk serves
itself, and through its own ``TodoWrite`` list, mirrored.  Everything the model "does" is a
tool call the fake Anthropic server scripts; the CLI really starts the server and runs it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from milk_tui.model import events as ev
from milk_tui.storage.tasks import TaskStore
from milk_tui.testing.claude_rig import CliRig
from milk_tui.testing.fake_anthropic import FakeAnthropic, Reply

pytestmark = pytest.mark.real_peer

TOOL = "mcp__milk-tasks__"


def _tool_results(rig: CliRig) -> list[str]:
    """What the CLI sent back to the model as tool results (the server's real answers)."""
    out: list[str] = []
    for req in rig.server.message_requests:
        for m in req.messages:
            content = m.get("content")
            if isinstance(content, list):
                out += [
                    json.dumps(p.get("content")) for p in content if p.get("type") == "tool_result"
                ]
    return out


async def test_claude_creates_lists_and_completes_tasks_through_milks_mcp_server(
    cli_rig: CliRig,
) -> None:
    rig = cli_rig
    store = TaskStore(rig.db)
    before = store.create("already planned", rig.session.id)
    rig.server.push(
        Reply.tool(TOOL + "create_task", {"text": "profile the slow query"}),
        Reply.tool(TOOL + "complete_task", {"id": before.id[:5]}),
        Reply.tool(TOOL + "list_tasks", {}),
        Reply.text("Planned."),
    )
    out = await rig.escalate("plan the work")
    assert out.ok, out
    assert not [e for e in rig.of("tool_result") if e.is_error], rig.of("tool_result")
    rows = [(t.text, t.status, t.scope) for t in store.tasks_of(rig.session.id)]
    assert rows == [("already planned", "done", "session"),
                    ("profile the slow query", "open", "session")]  # fmt: skip
    # no question was asked for milk's own tools, and each ran (no tool error came back)
    assert rig.of("permission_requested") == [] and rig.of("permission_decided") == []
    results = [e for e in rig.of("tool_result") if e.name.startswith(TOOL)]
    assert len(results) == 3 and not [r for r in results if r.is_error], results
    assert "profile the slow query" in results[-1].content  # list_tasks read the new row
    # the pane heard of each change: the last list is the stored one
    last = rig.of("tasks_changed")[-1]
    assert last.session_id == rig.session.id
    assert [(t.text, t.status) for t in last.tasks] == [(a, b) for a, b, _ in rows]


async def test_the_server_writes_to_the_session_in_use_after_a_new_one(cli_rig: CliRig) -> None:
    rig = cli_rig
    first = rig.session.id
    await rig.dispatcher.switch_session(rig.store.create(str(rig.cwd)))
    assert rig.session.id != first
    rig.server.push(Reply.tool(TOOL + "create_task", {"text": "in the new one"}), Reply.text("ok"))
    assert (await rig.escalate("plan")).ok
    store = TaskStore(rig.db)
    assert [t.text for t in store.tasks_of(rig.session.id)] == ["in the new one"]
    assert store.tasks_of(first) == []


async def test_claudes_task_tools_are_mirrored(cli_rig: CliRig) -> None:
    """Claude Code 2.1's own list: TaskCreate answers "Task #N created", TaskUpdate names N."""
    rig = cli_rig
    new = {"description": "d", "activeForm": "Working"}
    rig.server.push(
        Reply.tool("TaskCreate", {"subject": "read the code", **new}),
        Reply.tool("TaskCreate", {"subject": "fix the bug", **new}),
        Reply.tool("TaskUpdate", {"taskId": "1", "status": "completed"}),
        Reply.tool("TaskUpdate", {"taskId": "2", "status": "in_progress", "subject": "fix it"}),
        Reply.text("On it."),
    )
    assert (await rig.escalate("fix it")).ok
    assert not [e for e in rig.of("tool_result") if e.is_error]  # the CLI ran each call
    store = TaskStore(rig.db)
    rows = [(t.text, t.status, t.origin) for t in store.tasks_of(rig.session.id)]
    assert rows == [("read the code", "done", "claude"), ("fix it", "in_progress", "claude")]
    assert [t.status for t in rig.of("tasks_changed")[-1].tasks] == ["done", "in_progress"]
    rig.server.push(Reply.tool("TaskUpdate", {"taskId": "1", "status": "deleted"}), Reply.text("."))
    assert (await rig.escalate("drop the first")).ok
    assert [t.text for t in store.tasks_of(rig.session.id)] == ["fix it"]


@pytest.fixture
def todo_rig(tmp_path: Path, fake_anthropic: FakeAnthropic, claude_bin: str) -> Iterator[CliRig]:
    """The CLI with its older list tool, ``TodoWrite`` (its new Task* tools switched off)."""
    rig = CliRig(tmp_path, fake_anthropic, claude_bin, extra_env={"CLAUDE_CODE_ENABLE_TASKS": "0"})
    yield rig
    rig.close()


async def test_claudes_todowrite_list_is_mirrored_and_replaced_whole(todo_rig: CliRig) -> None:
    rig = todo_rig
    todos = [
        {"content": "read the code", "status": "completed", "activeForm": "Reading the code"},
        {"content": "fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
        {"content": "run the tests", "status": "pending", "activeForm": "Running the tests"},
    ]
    rig.server.push(Reply.tool("TodoWrite", {"todos": todos}), Reply.text("On it."))
    assert (await rig.escalate("fix it")).ok
    assert not [e for e in rig.of("tool_result") if e.is_error]  # the CLI ran TodoWrite
    store = TaskStore(rig.db)
    rows = [(t.text, t.status, t.origin) for t in store.tasks_of(rig.session.id)]
    assert rows == [("read the code", "done", "claude"), ("fix the bug", "in_progress", "claude"),
                    ("run the tests", "open", "claude")]  # fmt: skip
    fix_id = store.tasks_of(rig.session.id)[1].id
    (changed,) = rig.of("tasks_changed")
    assert [t.status for t in changed.tasks] == ["done", "in_progress", "open"]
    # the next call carries the whole list again: one item gone, one done
    todos = [dict(todos[1], status="completed"), dict(todos[2], status="in_progress")]
    rig.server.push(Reply.tool("TodoWrite", {"todos": todos}), Reply.text("Fixed."))
    assert (await rig.escalate("go on")).ok
    now = store.tasks_of(rig.session.id)
    assert [(t.text, t.status) for t in now] == [("fix the bug", "done"),
                                                 ("run the tests", "in_progress")]  # fmt: skip
    assert now[0].id == fix_id  # the same task, not a new one
    assert isinstance(rig.of("tasks_changed")[-1], ev.TasksChanged)
