"""The dev workflow pane: where the workflow is (sprint S/T, pass P/max, the role running),
one line per verdict so far, elapsed time and cost, and its state (running, waiting for
answers, out of passes, stopped, done, failed).

Beside the conversation while a workflow exists in this session; hidden when there is none
(or it was cleared).  Its view is built from the ``Workflow*`` bus events, and from the
checkpoint record when a session opens with a workflow in it."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import Static

from milk_tui.model import events as ev

if TYPE_CHECKING:
    from milk_tui.model.workflow import WorkflowState

clock: Callable[[], float] = time.monotonic
"""Where the live elapsed time comes from (tests pin it)."""
TICK_S = 1.0
"""How often the elapsed time moves while the workflow runs."""


@dataclass
class WorkflowView:
    workflow_id: int = 0
    sprint: int = 0
    total_sprints: int = 0
    pass_no: int = 0
    max_passes: int = 0
    role: str = ""
    agent: str = ""
    state: str = ""
    """running, waiting for answers, out of passes, stopped, done, failed."""
    error: str = ""
    verdicts: list[tuple[int, int, str]] = field(default_factory=list)
    elapsed_s: float = 0.0
    cost_usd: float = 0.0
    agent_map: dict[str, str] = field(default_factory=dict)


def _verdicts(history: list[dict[str, Any]]) -> list[tuple[int, int, str]]:
    return [(int(v.get("sprint", 0)), int(v.get("pass", 0)), str(v.get("verdict", ""))) for v in history]  # fmt: skip


def clock_text(seconds: float) -> str:
    s = int(seconds)
    return (
        f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
    )


class WorkflowPane(Static):
    DEFAULT_CSS = """
    WorkflowPane { width: 34; height: 1fr; display: none; padding: 0 1;
                   border: round $foreground 25%; border-title-color: $primary;
                   border-subtitle-color: $text-muted; }
    WorkflowPane.-shown { display: block; }
    MainScreen.-narrow WorkflowPane { width: 28; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.border_title = "Workflow"
        self.view = WorkflowView()
        self._since: float | None = None
        """Clock reading of the last progress while running: elapsed grows from there."""

    def on_mount(self) -> None:
        self.set_interval(TICK_S, self._tick)

    def _tick(self) -> None:
        if self._since is not None:
            self.paint()

    @property
    def shown(self) -> bool:
        return self.has_class("-shown")

    def show_state(self, wf: WorkflowState | None, *, only_live: bool = False) -> None:
        """A session's workflow from its checkpoint (None, or finished with ``only_live``:
        the pane hides)."""
        if wf is None or (only_live and wf.finished):
            self.view = WorkflowView()
            self._since = None
            self.set_class(False, "-shown")
            return
        self.view = WorkflowView(
            workflow_id=wf.workflow_id, sprint=wf.sprint, total_sprints=wf.total_sprints,
            pass_no=wf.pass_, max_passes=wf.max_passes, role=wf.role,
            agent=wf.agent_map.get(wf.role, ""),
            state="done" if wf.finished else "out of passes" if wf.exhausted
            else "failed" if wf.error else "stopped",
            error=wf.error,
            verdicts=[(v.sprint, v.pass_, v.verdict) for v in wf.verdict_history],
            elapsed_s=wf.elapsed_s, cost_usd=wf.cost_usd, agent_map=dict(wf.agent_map),
        )  # fmt: skip
        self._since = None
        self.set_class(True, "-shown")
        self.paint()

    def handle_bus_event(self, e: ev.BusEvent) -> None:
        v = self.view
        match e:
            case ev.WorkflowStarted():
                if not e.resumed or v.workflow_id != e.workflow_id:
                    self.view = v = WorkflowView(workflow_id=e.workflow_id)
                v.agent_map, v.role, v.state = dict(e.agent_map), e.role, "running"
                v.agent, v.error = e.agent_map.get(e.role, ""), ""
                self._since = clock()
                self.set_class(True, "-shown")
            case ev.WorkflowProgress():
                v.sprint, v.total_sprints = e.sprint, e.total_sprints
                v.pass_no, v.max_passes, v.role = e.pass_no, e.max_passes, e.role
                v.agent = e.agent_name or v.agent_map.get(e.role, "")
                v.verdicts = _verdicts(e.verdict_history)
                v.elapsed_s, v.cost_usd = e.elapsed_s, e.cost_usd
                if v.state == "waiting for answers":
                    v.state = "running"
                if self._since is not None:
                    self._since = clock()
            case ev.WorkflowQuestions():
                v.state = "waiting for answers"
            case ev.WorkflowFinished():
                v.elapsed_s = self._elapsed()
                self._since = None
                v.state = (
                    "done" if e.ok else "stopped" if e.cancelled
                    else "out of passes" if e.exhausted_sprint else "failed"
                )  # fmt: skip
                v.error = e.error if v.state == "failed" else ""
                if e.ok:
                    v.role = "done"
            case _:
                return
        self.paint()

    def _elapsed(self) -> float:
        if self._since is None:
            return self.view.elapsed_s
        return self.view.elapsed_s + max(0.0, clock() - self._since)

    def render_view(self) -> Text:
        v = self.view
        t = Text()
        t.append(f"dev #{v.workflow_id}  ", style="bold")
        t.append(v.state or "…", style=_STATE_STYLE.get(v.state, ""))
        t.append("\n")
        if v.total_sprints:
            t.append(f"sprint {v.sprint}/{v.total_sprints}  pass {v.pass_no}/{v.max_passes}\n")
        else:
            t.append("planning\n")
        if v.role and v.role != "done":
            t.append(f"{v.role}", style="bold")
            t.append(f" · {v.agent}\n" if v.agent else "\n", style="dim")
        t.append(f"{clock_text(self._elapsed())}  ${v.cost_usd:.4f}\n", style="dim")
        if v.error:
            t.append(f"{v.error}\n", style="red")
        if v.verdicts:
            t.append("verdicts\n", style="bold")
            for sprint, pass_no, verdict in v.verdicts[-12:]:
                t.append(f" s{sprint} p{pass_no} ")
                t.append(f"{verdict}\n", style=_VERDICT_STYLE.get(verdict, "dim"))
        t.rstrip()
        return t

    def paint(self) -> None:
        self.update(self.render_view())


_STATE_STYLE = {
    "running": "green", "waiting for answers": "yellow", "out of passes": "yellow",
    "stopped": "dim", "done": "green bold", "failed": "red bold",
}  # fmt: skip
_VERDICT_STYLE = {"good_to_go": "green", "sprint_done": "green", "needs_refinement": "yellow"}
