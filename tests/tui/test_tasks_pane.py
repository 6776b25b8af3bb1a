"""The tasks pane, ``/tasks`` and ``/task`` in the real TUI (Pilot): F2 cycles the pane in,
the list follows ``/new`` and a session switch, hostile task text is drawn inert."""

from __future__ import annotations

from pathlib import Path

from milk_tui.model import events as ev
from milk_tui.model.terminal_text import inert
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.tasks_pane import TasksPane
from tui.conftest import make_app, settle, type_and_send

HOSTILE = "evil \x1b]52;c;aGk=\x07 \x1b[2J\x1b[31mred\u202e text"


def _said(app) -> str:  # noqa: ANN001
    return app.main_screen.query_one(Conversation).items[-1].text


def _pane_text(app) -> str:  # noqa: ANN001
    return str(app.main_screen.query_one(TasksPane).body.render())


async def test_f2_cycles_panes_tasks_nothing_and_task_commands_fill_the_pane(
    tmp_path: Path,
) -> None:
    app = make_app(cwd=str(tmp_path), session="tasks-tui")
    async with app.run_test(size=(160, 45)) as pilot:
        screen, pane = app.main_screen, app.main_screen.query_one(TasksPane)
        assert not pane.display and screen.query_one("#facts").display
        await pilot.press("f2")
        assert pane.display and not screen.query_one("#facts").display
        await pilot.press("f2")
        assert not screen.query_one("#side").display and app.ui_state.side_tasks is False
        await pilot.press("f2")
        assert screen.query_one("#facts").display and not pane.display
        await pilot.press("f2")
        await type_and_send(pilot, "/task add write   the tests")
        tid = pane.tasks[0].id
        assert _said(app) == f"task {tid} added: write the tests"
        assert f"○ {tid[:4]} write the tests" in _pane_text(app)
        await type_and_send(pilot, f"/task done {tid[:4]}")
        assert pane.tasks[0].status == "done" and f"✓ {tid[:4]}" in _pane_text(app)
        await type_and_send(pilot, "/task done zz")
        assert _said(app) == "/task: task id 'zz' is too short: give at least 4 characters"
        await type_and_send(pilot, "/task")
        assert _said(app) == "/task: usage: /task add [--global] TEXT | /task done ID"
        await type_and_send(pilot, "/tasks")
        assert _said(app).splitlines() == [
            "tasks:", "  this session:", f"    {tid}  done         write the tests",
            "  global: (none)",
        ]  # fmt: skip
        assert app.facade.history() == []  # nothing went to a model


async def test_the_pane_follows_new_and_a_switch_and_shows_global_tasks(tmp_path: Path) -> None:
    app = make_app(cwd=str(tmp_path), session="tasks-follow")
    async with app.run_test(size=(160, 45)) as pilot:
        pane = app.main_screen.query_one(TasksPane)
        first = app.facade.session_id
        await type_and_send(pilot, "/task add of the first session")
        await type_and_send(pilot, "/task add --global for every session")
        await type_and_send(pilot, "/new")
        assert app.facade.session_id != first
        assert [(t.text, t.scope) for t in pane.tasks] == [("for every session", "global")]
        await type_and_send(pilot, "/task add of the second")
        assert app.facade.tasks.list()[0].session_id == app.facade.session_id
        await app.facade.switch_session(first)
        await settle(pilot, app)
        assert [t.text for t in pane.tasks] == ["of the first session", "for every session"]
        text = _pane_text(app)
        assert text.index("this session") < text.index("of the first") < text.index("global")


async def test_hostile_task_text_is_drawn_inert(tmp_path: Path) -> None:
    app = make_app(cwd=str(tmp_path), session="tasks-hostile")
    app.facade.tasks.add(HOSTILE)  # read from the store at start, not through the bridge
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, app)
        assert inert(HOSTILE) in _pane_text(app)  # each control shown as a visible mark
        await type_and_send(pilot, "/tasks")
        for shown in (_pane_text(app), _said(app)):
            assert "evil" in shown and "text" in shown
            assert not any(c in shown for c in "\x1b\x07\u202e"), repr(shown)
        app.runtime.bus.publish(ev.TasksChanged(tasks=()))
        await settle(pilot, app)
        assert "(none)" in _pane_text(app)


async def test_an_api_agents_task_tools_fill_the_pane_mid_turn(tmp_path: Path) -> None:
    """A scripted OpenAI-compatible primary creates and completes tasks; no question is asked
    and the pane shows them (the real tool loop, the real TUI)."""
    import json

    from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall
    from milk_tui.tui.screens.main import MainScreen
    from tui.conftest import fake_agent_config

    with FakeOpenAIServer() as srv:
        app = make_app(config=fake_agent_config(srv.url), demo=False, cwd=str(tmp_path))
        async with app.run_test(size=(160, 45)) as pilot:
            first = app.facade.tasks.add("already there")
            srv.enqueue(
                FakeReply(tool_calls=[
                    FakeToolCall("create_task", json.dumps({"text": "sketch the API"}), id="a"),
                    FakeToolCall("complete_task", json.dumps({"id": first.id[:6]}), id="b"),
                ]),
                FakeReply(text=["Planned."]),
            )  # fmt: skip
            await type_and_send(pilot, "/primary plan it")
            assert isinstance(app.screen, MainScreen)  # no permission modal came up
            pane = app.main_screen.query_one(TasksPane)
            assert [(t.text, t.status) for t in pane.tasks] == [
                ("already there", "done"), ("sketch the API", "open")
            ]  # fmt: skip
            text = _pane_text(app)
            assert "✓" in text and "○" in text and "sketch the API" in text


async def test_a_task_the_cli_adds_shows_in_the_open_pane(tmp_path: Path) -> None:
    import os

    from milk_tui.testing.cli_run import run_milk
    from milk_tui.testing.waits import until

    app = make_app(cwd=str(tmp_path), session="tasks-cli")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, app)
        out = run_milk("tasks", "add", "from the shell", cwd=tmp_path, env=dict(os.environ))
        assert out.returncode == 0, out.stderr
        pane = app.main_screen.query_one(TasksPane)
        await until(
            pilot, lambda: [t.text for t in pane.tasks] == ["from the shell"], timeout=30,
            what="the pane to show the CLI's task",
        )  # fmt: skip
