"""Bus events of the dev workflow (engine/workflow/runner.py).  Part of the ``AnyEvent``
union of model/events.py, which re-exports them.  A role's tool calls and permission
questions are the normal ``ToolCall``/``ToolResult``/``PermissionRequested`` events."""

from __future__ import annotations

from typing import Any, Literal

from milk_tui.model.bus_event import BusEvent, field


class WorkflowStarted(BusEvent):
    type: Literal["workflow_started"] = "workflow_started"
    name: str
    """The workflow kind: ``dev``."""
    task: str
    agent_map: dict[str, str]
    """role (designer, generator, evaluator) → configured agent name."""
    workflow_id: int
    resumed: bool = False
    role: str = ""
    """The role it starts (or resumes) with."""


class WorkflowProgress(BusEvent):
    """After every checkpoint: where the workflow is and what it has spent."""

    type: Literal["workflow_progress"] = "workflow_progress"
    sprint: int
    total_sprints: int
    pass_no: int
    max_passes: int
    role: str
    """The role that runs next: designer, generator, evaluator, or done."""
    verdict_history: list[dict[str, Any]] = field(default_factory=list)
    """``{"sprint", "pass", "verdict"}`` per evaluator answer so far."""
    elapsed_s: float = 0.0
    cost_usd: float = 0.0
    agent_name: str = ""


class WorkflowDelta(BusEvent):
    """Streamed text of a role (not ``TextDelta``: its ``slot`` is only primary/escalation)."""

    type: Literal["workflow_delta"] = "workflow_delta"
    role: str
    text: str
    header: str = ""
    """Set on a role turn's first delta: ``generator sprint 1 pass 2 (agent)``."""


class WorkflowQuestions(BusEvent):
    """The designer asks before planning; answer with ``answer_questions(request_id, …)``."""

    type: Literal["workflow_questions"] = "workflow_questions"
    request_id: str
    questions: str


class WorkflowFinished(BusEvent):
    type: Literal["workflow_finished"] = "workflow_finished"
    ok: bool
    cancelled: bool = False
    error: str = ""
    exhausted_sprint: int = 0
    """>0: that sprint used its passes without a passing verdict; extend continues it."""
    max_passes: int = 0
    findings_path: str = ""
    workflow_id: int = 0
