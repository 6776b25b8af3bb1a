"""/workflow in the TUI end to end on three scripted fake OpenAI servers (designer,
generator, evaluator): the form starts it, the designer's questions are answered in their
modal, the pane follows the sprints and passes, the out-of-passes offer extends it, each
role's text lands under its header (inert), then status and clear (with a confirm)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Select, TextArea
from workflow.test_workflow_headless import PLAN, write

from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.tui.screens.confirm_modal import ConfirmModal
from milk_tui.tui.screens.workflow_form import WorkflowForm
from milk_tui.tui.screens.workflow_modals import WorkflowExtendModal, WorkflowQuestionsModal
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.workflow_pane import WorkflowPane
from tui.conftest import make_app, settle, type_and_send, until

WAIT = 120.0
HOSTILE = "sneaky \x1b]52;c;aGk=\x07\x1b[2J\x1b[31mred\x9b31m done"


@pytest.fixture
def roles() -> Iterator[dict[str, FakeOpenAIServer]]:
    with FakeOpenAIServer() as d, FakeOpenAIServer() as g, FakeOpenAIServer() as e:
        yield {"designer": d, "generator": g, "evaluator": e}


def config(roles: dict[str, FakeOpenAIServer]) -> MilkConfig:
    agents = [
        AgentConfig(name=n, provider="local", url=roles[r].url, model=f"m-{n}")
        for n, r in (("des", "designer"), ("gen", "generator"), ("eva", "evaluator"))
    ]
    return MilkConfig(agent="gen", escalation_agent="eva", agents=agents)


def texts(app: Any) -> str:
    conv = app.main_screen.query_one(Conversation)
    return "\n".join(f"{it.agent_name}|{it.text}" for it in conv.items)


def pane_text(app: Any) -> str:
    return str(app.main_screen.query_one(WorkflowPane).render_view())


async def open_form(pilot: Any, task: str) -> WorkflowForm:
    app = pilot.app
    await type_and_send(pilot, f"/workflow dev {task}")
    await until(pilot, lambda: isinstance(app.screen, WorkflowForm), what="the form")
    form = app.screen
    assert isinstance(form, WorkflowForm)
    for role, name in (("designer", "des"), ("generator", "gen"), ("evaluator", "eva")):
        form.query_one(f"#agent-{role}", Select).value = name
    return form


async def test_a_workflow_from_the_form_to_the_end(
    roles: dict[str, FakeOpenAIServer], tmp_path: Path
) -> None:
    d, g, e = roles["designer"], roles["generator"], roles["evaluator"]
    plan = PLAN.replace("NO_QUESTIONS\n", "")
    d.enqueue(FakeReply(text=["1. Which language?"]), FakeReply(text=[plan]))
    g.enqueue(
        write("hello.txt", "hi", "c1"), FakeReply(text=[f"wrote hello.txt {HOSTILE}"]),
        FakeReply(text=["fixed hello.txt"]),
        FakeReply(text=["wrote goodbye.txt"]), FakeReply(text=["goodbye again"]),
        FakeReply(text=["goodbye, third time"]),
    )  # fmt: skip
    e.enqueue(
        FakeReply(text=["missing the bang\nneeds_refinement"]),
        FakeReply(text=["good_to_go"]),
        FakeReply(text=["needs_refinement"]), FakeReply(text=["still needs_refinement"]),
        FakeReply(text=["sprint_done"]),
    )  # fmt: skip
    app = make_app(config=config(roles), demo=False, cwd=str(tmp_path), permission_policy="allow")
    async with app.run_test(size=(160, 45)) as pilot:
        pane = app.screen.query_one(WorkflowPane)
        assert not pane.shown
        form = await open_form(pilot, "write the two files")
        assert form.query_one("#task", TextArea).text == "write the two files"
        await pilot.press("ctrl+s")
        # the designer asks first: its modal, answered
        await until(pilot, lambda: isinstance(app.screen, WorkflowQuestionsModal), WAIT,
                    what="the designer's questions")  # fmt: skip
        assert pane.shown and pane.view.state == "waiting for answers"
        await pilot.press(*"Python")
        await pilot.press("ctrl+s")
        # sprint 2 runs out of its 2 passes: the extend offer
        await until(pilot, lambda: isinstance(app.screen, WorkflowExtendModal), WAIT,
                    what="the extend offer")  # fmt: skip
        assert "Python" in json.dumps(d.chat_requests[1].json["messages"])
        assert pane.view.state == "out of passes"
        shown = pane_text(app)
        assert "sprint 2/2" in shown and "pass 2/2" in shown, shown
        assert "s1 p1 needs_refinement" in shown and "s1 p2 good_to_go" in shown, shown
        assert "s2 p2 needs_refinement" in shown, shown
        await pilot.press("escape")  # Stop: it stays out of passes, resumable
        await until(pilot, lambda: "/workflow resume offers to extend it" in texts(app))
        await type_and_send(pilot, "/workflow resume")
        await until(pilot, lambda: isinstance(app.screen, WorkflowExtendModal), what="the offer")
        await pilot.click("#extend")
        await until(pilot, lambda: pane.view.state == "done", WAIT, what="the end")
        await settle(pilot, app)
        assert pane.view.max_passes == 4 and "s2 p1 sprint_done" in pane_text(app)
        assert (tmp_path / "hello.txt").read_text() == "hi"
        conv = texts(app)
        assert "designer · des|1. Which language?" in conv, conv
        assert "generator · gen — sprint 1 pass 1|wrote hello.txt sneaky" in conv, conv
        assert "evaluator · eva — sprint 1 pass 1|missing the bang" in conv, conv
        assert "workflow complete" in conv
        # hostile role text is inert: no ESC, no C1 CSI reaches the conversation
        assert "\x1b" not in conv and "\x9b" not in conv and "\x07" not in conv
        # status, then clear (asks first; No keeps it)
        await type_and_send(pilot, "/workflow status")
        assert "workflow 1 (dev): write the two files" in texts(app)
        assert "s2p1 sprint_done" in texts(app)
        await type_and_send(pilot, "/workflow clear")
        await until(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the confirm")
        await pilot.press("n")
        await until(pilot, lambda: not isinstance(app.screen, ConfirmModal))
        assert pane.shown and app.facade.workflow.state() is not None
        await type_and_send(pilot, "/workflow clear")
        await until(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the confirm")
        await pilot.press("y")
        await until(pilot, lambda: not pane.shown, what="the pane to hide")
        assert app.facade.workflow.state() is None
        assert "workflow 1 cleared" in texts(app)
        await type_and_send(pilot, "/workflow status")
        assert texts(app).rstrip().endswith("no workflow in this session")
