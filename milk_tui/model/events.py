"""Bus events: the one vocabulary shared by the dispatcher, the TUI, print mode and tests.

Every event is a frozen record (model/bus_event.py) with a snake_case ``type`` literal so
that ``--output-format stream-json`` can print ``event.to_json()`` one per line and tests
can assert on plain dicts.  Field names are part of the stable interface (docs/interfaces.md).
"""

from __future__ import annotations

import json
import time
from typing import Any, Literal, cast

from milk_tui.model.attachment import AttachmentInfo
from milk_tui.model.bus_event import BusEvent, Slot, event_from_data, field
from milk_tui.model.live_events import (
    AgentsChanged,
    ServerCountdown,
    ServerFailed,
    ServerReady,
    ServerStarting,
    ServerStopped,
)
from milk_tui.model.permission_events import (
    DeniedCall,
    PermissionDecided,
    PermissionHow,
    PermissionRequested,
    PermissionsDenied,
    QuestionAsked,
)
from milk_tui.model.session import TokenUsage
from milk_tui.model.task import Task
from milk_tui.model.workflow_events import (
    WorkflowDelta,
    WorkflowFinished,
    WorkflowProgress,
    WorkflowQuestions,
    WorkflowStarted,
)

__all__ = [
    "AgentsChanged",
    "BusEvent",
    "DeniedCall",
    "PermissionDecided",
    "PermissionHow",
    "PermissionRequested",
    "PermissionsDenied",
    "QuestionAsked",
    "ServerCountdown",
    "ServerFailed",
    "ServerReady",
    "ServerStarting",
    "ServerStopped",
    "Slot",
    "WorkflowDelta",
    "WorkflowFinished",
    "WorkflowProgress",
    "WorkflowQuestions",
    "WorkflowStarted",
]


class TurnStarted(BusEvent):
    type: Literal["turn_started"] = "turn_started"
    prompt: str
    turn_index: int = 0
    """1-based position the user turn will take once recorded (len(history)+1)."""
    attachments: list[AttachmentInfo] = field(default_factory=list)
    """The files sent with the prompt (name, kind, size; never their bytes)."""


class RouteDecided(BusEvent):
    type: Literal["route_decided"] = "route_decided"
    target: Slot
    agent_name: str
    reason: str
    rule: str = ""
    """Which layer decided: explicit, state, keyword, short_prompt, score, classifier, default, fallback."""
    label: str = ""
    """pinned / sticky / forced / fallback / "" for the status line."""


class RequestSent(BusEvent):
    """An agent's request for this turn is on its way: written to the server's socket, or
    to the CLI's standard input.  The TUI paints the turn's start after it, so the
    request does not wait behind a repaint (docs/adr/0045-the-request-before-the-repaint.md)."""

    type: Literal["request_sent"] = "request_sent"
    slot: Slot
    agent_name: str = ""


class _SlotText(BusEvent):
    slot: Slot
    text: str


class TextDelta(_SlotText):
    type: Literal["text_delta"] = "text_delta"


class ThinkingDelta(_SlotText):
    type: Literal["thinking_delta"] = "thinking_delta"


def fast_delta(
    cls: type[TextDelta] | type[ThinkingDelta], slot: str, text: str, session_id: str
) -> TextDelta | ThinkingDelta:
    """Build a delta without validation: the dispatcher's per-chunk hot path.

    The inputs are already typed (our own slot literal, a str); the generic constructor's
    checks and default lookups cost microseconds per chunk — a measurable share of a
    20,000-chunk turn (budgets: docs/ARCHITECTURE.md).  The result is an ordinary, equal,
    serialisable event.
    """
    m = object.__new__(cls)
    object.__setattr__(
        m,
        "__dict__",
        {"ts": time.time(), "session_id": session_id, "type": cls.type, "slot": slot, "text": text},
    )
    return m


class ToolCall(BusEvent):
    type: Literal["tool_call"] = "tool_call"
    slot: Slot
    call_id: str
    name: str
    arguments: str
    """JSON text, as the model wrote it."""


class ToolResult(BusEvent):
    type: Literal["tool_result"] = "tool_result"
    slot: Slot
    call_id: str
    name: str = ""
    content: str
    is_error: bool = False


class NeedChanged(BusEvent):
    type: Literal["need_changed"] = "need_changed"
    need: str
    set_at: int
    producer: str = ""
    previous: str = ""
    rolled_back: bool = False
    """The need a failed or cancelled turn set was taken back; it was never the need."""


class RoutingPinned(BusEvent):
    """``/primary``, ``/escalate`` or ``/auto`` changed where prompts go until changed again."""

    type: Literal["routing_pinned"] = "routing_pinned"
    pinned: Literal["", "primary", "escalation"]
    """The pinned slot; "" means automatic routing."""


class _PerceptEvent(BusEvent):
    percept_id: int


class PerceptRecorded(_PerceptEvent):
    type: Literal["percept_recorded"] = "percept_recorded"
    content: str
    producer: str
    consumer: str
    reinforced: bool = False


class PerceptUpdated(_PerceptEvent):
    type: Literal["percept_updated"] = "percept_updated"
    content: str = ""
    fields: dict[str, Any] = field(default_factory=dict)


class PerceptDeleted(_PerceptEvent):
    type: Literal["percept_deleted"] = "percept_deleted"


class EscalationStarted(BusEvent):
    type: Literal["escalation_started"] = "escalation_started"
    agent_name: str
    mode: Literal["first", "returning", "resume", "continuation"]
    downgraded: bool = False
    downgrade_reasons: list[Literal["need_changed", "turn_gap"]] = field(default_factory=list)
    local_turns_since: int = 0
    resume: bool = False
    escalation_session_id: str = ""
    brief: str = ""
    context_text: str = ""
    """The exact orientation/context text the escalation agent receives (\"what it saw\")."""
    reason: str = ""
    """Why this prompt went to the escalation agent: the route's reason, or the primary's
    hand-off (its ``escalate`` call, a repeated prompt)."""


class EscalationFinished(BusEvent):
    type: Literal["escalation_finished"] = "escalation_finished"
    agent_name: str
    escalation_session_id: str = ""
    ok: bool = True
    ends_with_question: bool = False
    cost_usd: float = 0.0


class Usage(BusEvent):
    type: Literal["usage"] = "usage"
    role: str
    """primary, escalation, escalation:subagent …"""
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_read: int = 0
    cache_creation: int = 0
    cost_usd: float = 0.0


class StateChanged(BusEvent):
    type: Literal["state_changed"] = "state_changed"
    state: str
    previous: str = ""


class TurnCompleted(BusEvent):
    type: Literal["turn_completed"] = "turn_completed"
    slot: Slot
    agent_name: str
    text: str
    thinking: str = ""
    history_len: int = 0
    self_escalated: bool = False


class TurnFailed(BusEvent):
    type: Literal["turn_failed"] = "turn_failed"
    slot: Slot | None = None
    agent_name: str = ""
    error: str
    cancelled: bool = False
    prompt: str = ""


class Notice(BusEvent):
    type: Literal["notice"] = "notice"
    level: Literal["info", "warning", "error"] = "info"
    message: str


class ReplyCut(BusEvent):
    """A reply that kept repeating one passage was stopped; ``kept`` is the reply as it will be
    recorded (what came before the loop and the passage once).  The conversation shows
    ``kept`` in place of the copies that had streamed; a ``notice`` says why."""

    type: Literal["reply_cut"] = "reply_cut"
    slot: Slot
    kept: str
    passage: str


class ReplyTruncated(BusEvent):
    """The backend stopped the reply at its token limit (``length``, ``max_tokens``,
    ``max_output_tokens``); ``max_tokens`` is the agent's limit, else the reply's token count."""

    type: Literal["reply_truncated"] = "reply_truncated"
    slot: Slot
    agent_name: str
    finish_reason: str
    max_tokens: int = 0

    def line(self) -> str:  # the conversation's line and print mode's stderr line
        n = f" ({self.max_tokens})" if self.max_tokens else ""
        return f"{self.agent_name}: reply cut at max_tokens{n}; it is incomplete"


class SessionChanged(BusEvent):
    """What the panes show of the session: published by the application facade after a
    session is loaded, switched or created and after every finished turn.

    The TUI's panes (header, need, escalation, status line) build their view models from
    this event and the live events; no widget holds the session itself.
    """

    type: Literal["session_changed"] = "session_changed"
    name: str = ""
    cwd: str = ""
    state: str = ""
    records: int = 0
    """Turns in the history (user and assistant records)."""
    exchanges: int = 0
    """User turns answered: what a person calls "turns"."""
    need: str = ""
    need_set_at: int = 0
    """1-based position of the user turn in which the need was recorded."""
    need_question: int = 0
    """The question (1-based count of user turns) in which the need was recorded; 0 when
    it was set after the last answered question."""
    need_producer: str = ""
    need_stale: bool = False
    escalation_session_id: str = ""
    escalation_brief: str = ""
    last_user_agent: str = ""
    """Slot (``primary``/``escalation``) that answered the latest user turn; "" when none."""
    local_turns_since_escalation: int = 0
    last_escalation_context: str = ""
    """The context text the escalation agent saw on its latest hand-off ("what it saw")."""
    tokens: tuple[TokenUsage, ...] = ()


class StoreChanged(BusEvent):
    """Another process (the CLI, a ``-p`` run) wrote the database: facts may differ.
    ``session_reloaded``: the live session changed there and was reloaded; its
    ``SessionChanged`` came just before."""

    type: Literal["store_changed"] = "store_changed"
    session_reloaded: bool = False


class TasksChanged(BusEvent):
    """The live session's task list after a change (a tool, ``/task``, Claude's to-do list,
    the tasks MCP server) or a session switch: its tasks, then the global ones."""

    type: Literal["tasks_changed"] = "tasks_changed"
    tasks: tuple[Task, ...] = ()


AnyEvent = (
    TurnStarted
    | RouteDecided
    | RequestSent
    | TextDelta
    | ThinkingDelta
    | ToolCall
    | ToolResult
    | NeedChanged
    | RoutingPinned
    | PerceptRecorded
    | PerceptUpdated
    | PerceptDeleted
    | EscalationStarted
    | EscalationFinished
    | Usage
    | StateChanged
    | TurnCompleted
    | TurnFailed
    | Notice
    | PermissionRequested
    | ReplyCut
    | ReplyTruncated
    | PermissionDecided
    | QuestionAsked
    | PermissionsDenied
    | SessionChanged
    | StoreChanged
    | TasksChanged
    | ServerStarting
    | ServerCountdown
    | ServerReady
    | ServerFailed
    | ServerStopped
    | AgentsChanged
    | WorkflowStarted
    | WorkflowProgress
    | WorkflowDelta
    | WorkflowQuestions
    | WorkflowFinished
)


def parse_event(data: str | bytes | dict[str, Any]) -> AnyEvent:
    """Inverse of ``to_json`` (a line of ``--output-format stream-json``), for tests and
    tools that read those lines; ``ValueError`` when it is not one."""
    return cast(AnyEvent, event_from_data(data if isinstance(data, dict) else json.loads(data)))
