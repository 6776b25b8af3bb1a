"""The workflow's modals cannot be answered by stray typing, Esc skips the designer's
questions (it plans with its defaults), and Ctrl+C stops a running workflow at its last
checkpoint (the pane says so; a prompt meanwhile is refused as busy)."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import TextArea
from workflow.test_workflow_headless import PLAN

from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.tui.screens.workflow_form import WorkflowForm
from milk_tui.tui.screens.workflow_modals import WorkflowExtendModal, WorkflowQuestionsModal
from milk_tui.tui.widgets.prompt_input import PromptInput
from milk_tui.tui.widgets.workflow_pane import WorkflowPane
from tui.conftest import make_app, type_and_send, until
from tui.test_workflow_tui import WAIT, config, open_form, roles, texts

__all__ = ["roles"]  # the fixture, shared


async def test_a_burst_of_text_never_answers_the_extend_offer() -> None:
    app = make_app()
    chosen: list[bool | None] = []
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(WorkflowExtendModal(2, 3), chosen.append)
        await until(pilot, lambda: isinstance(app.screen, WorkflowExtendModal))
        await pilot.press(*"yes extend", "enter", *"stop", "enter")
        await pilot.pause()
        assert isinstance(app.screen, WorkflowExtendModal) and chosen == []
        await pilot.press("tab", "tab", "enter")  # on purpose: Tab to Extend, then Enter
        await until(pilot, lambda: chosen == [True], what="Extend chosen")


async def test_questions_take_typing_as_text_and_esc_skips(
    roles: dict[str, FakeOpenAIServer], tmp_path: Path
) -> None:
    d, g, e = roles["designer"], roles["generator"], roles["evaluator"]
    d.enqueue(FakeReply(text=["1. Which language?"]), FakeReply(text=[PLAN]))
    g.default_reply = FakeReply(text=["did it"])
    e.default_reply = FakeReply(text=["good_to_go"])
    app = make_app(config=config(roles), demo=False, cwd=str(tmp_path), permission_policy="allow")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_form(pilot, "two files")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, WorkflowQuestionsModal), WAIT,
                    what="the designer's questions")  # fmt: skip
        modal = app.screen
        await pilot.press(*"yes", "enter", *"no", "enter", "space")
        await pilot.pause()
        assert app.screen is modal, "typing answered the questions"
        assert modal.query_one("#answers", TextArea).text == "yes\nno\n "
        await pilot.press("escape")
        pane = app.main_screen.query_one(WorkflowPane)
        await until(pilot, lambda: pane.view.state == "done", WAIT, what="the end")
        assert "yes\\nno" not in json.dumps(d.chat_requests[1].json["messages"])
        assert "plans with its defaults" in texts(app)


async def test_ctrl_c_stops_the_workflow_and_prompts_wait(
    roles: dict[str, FakeOpenAIServer], tmp_path: Path
) -> None:
    d, g = roles["designer"], roles["generator"]
    d.enqueue(FakeReply(text=[PLAN]))
    g.default_reply = FakeReply(text=["x"], hang="before_headers")
    app = make_app(config=config(roles), demo=False, cwd=str(tmp_path), permission_policy="allow")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_form(pilot, "two files")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: g.chat_requests, WAIT, what="the generator's request")
        pane = app.main_screen.query_one(WorkflowPane)
        assert pane.view.state == "running" and pane.view.role == "generator"
        app.main_screen.query_one(PromptInput).set_text("/workflow dev another")
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, WorkflowForm)
        assert "a turn or a workflow is running" in texts(app)
        await pilot.press("ctrl+c")
        await until(pilot, lambda: pane.view.state == "stopped", WAIT, what="the stop")
        await until(pilot, lambda: not app.facade.busy, WAIT, what="idle")
        assert "workflow interrupted (/workflow resume continues)" in texts(app)
        stopped = app.facade.workflow.state()
        assert stopped is not None and stopped.role == "generator"  # resumes from there
        await type_and_send(pilot, "/workflow reconfigure generator")
        assert "reconfigure takes ROLE=AGENT" in texts(app)
        await type_and_send(pilot, "/workflow reconfigure generator=des")
        assert 'workflow 1: {"designer": "des", "generator": "des"' in texts(app)
    # the next start in this folder shows the unfinished workflow in the pane
    again = make_app(config=config(roles), demo=False, cwd=str(tmp_path))
    async with again.run_test(size=(120, 40)) as pilot:
        pane = again.main_screen.query_one(WorkflowPane)
        await until(pilot, lambda: pane.shown, what="the pane of the stopped workflow")
        assert pane.view.state == "stopped" and pane.view.role == "generator"
        assert pane.view.agent == "des"
