"""Snapshots of the dev workflow in the TUI: the /workflow dev form and the workflow pane
(with the roles' text under their headers) at 80×24 and 160×45 (SVGs in
snapshots/tui/test_snapshots_workflow/; rules in ``snapshot_base.py``)."""

from __future__ import annotations

import pytest

from milk_tui.tui.screens.workflow_form import WorkflowForm
from milk_tui.tui.screens.workflow_modals import WorkflowExtendModal, WorkflowQuestionsModal
from milk_tui.tui.widgets import workflow_pane
from tui.snapshot_base import SMALL, SnapshotCase, ev, on_screen, publish, send

WIDE = (160, 45)
AGENTS = {"designer": "des", "generator": "gen", "evaluator": "eva"}
RUN = (
    ev.WorkflowStarted(name="dev", task="write the two files", agent_map=AGENTS, workflow_id=1,
                       role="designer"),
    ev.WorkflowDelta(role="designer", text="", header="designer (des)"),
    ev.WorkflowDelta(role="designer", text="## Spec\nWrite hello.txt then goodbye.txt.\n"
                     "## Limits\nmax_passes: 3\n## Sprint 1\nhello.txt\n## Sprint 2\ngoodbye.txt"),
    ev.WorkflowProgress(sprint=1, total_sprints=2, pass_no=1, max_passes=3, role="generator",
                        elapsed_s=12.0, cost_usd=0.0123, agent_name="gen"),
    ev.WorkflowDelta(role="generator", text="", header="generator sprint 1 pass 1 (gen)"),
    ev.WorkflowDelta(role="generator", text="Wrote `hello.txt` with `hi`."),
    ev.WorkflowProgress(sprint=1, total_sprints=2, pass_no=1, max_passes=3, role="evaluator",
                        elapsed_s=40.0, cost_usd=0.0311, agent_name="eva"),
    ev.WorkflowDelta(role="evaluator", text="", header="evaluator sprint 1 pass 1 (eva)"),
    ev.WorkflowDelta(role="evaluator", text="It lacks the bang.\n\nneeds_refinement"),
    ev.WorkflowProgress(sprint=1, total_sprints=2, pass_no=2, max_passes=3, role="generator",
                        verdict_history=[{"sprint": 1, "pass": 1, "verdict": "needs_refinement"}],
                        elapsed_s=95.0, cost_usd=0.0456, agent_name="gen"),
)  # fmt: skip


@pytest.fixture(autouse=True)
def _still_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workflow_pane, "clock", lambda: 0.0)


class TestWorkflow(SnapshotCase):
    def test_form_80x24(self) -> None:
        assert self.shot(
            send("/workflow dev write the two files"), on_screen(WorkflowForm), size=SMALL
        )

    def test_form_160x45(self) -> None:
        assert self.shot(
            send("/workflow dev write the two files"), on_screen(WorkflowForm), size=WIDE
        )

    def test_pane_80x24(self) -> None:
        assert self.shot(publish(*RUN), size=SMALL)

    def test_pane_160x45(self) -> None:
        assert self.shot(publish(*RUN), size=WIDE)

    def test_questions_80x24(self) -> None:
        asked = ev.WorkflowQuestions(request_id="q1", questions="1. Which language?\n"
                                     "2. Tabs or spaces?")  # fmt: skip
        assert self.shot(publish(*RUN[:3], asked), on_screen(WorkflowQuestionsModal), size=SMALL)

    def test_extend_offer_80x24(self) -> None:
        out = ev.WorkflowFinished(ok=False, exhausted_sprint=1, max_passes=3, workflow_id=1)
        assert self.shot(publish(*RUN, out), on_screen(WorkflowExtendModal), size=SMALL)
