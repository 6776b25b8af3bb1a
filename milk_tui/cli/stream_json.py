"""``-p --output-format stream-json``: which bus events a headless run prints.

The one list of them; ``docs/interfaces.md`` ("Command line") names the same three groups
and a test holds the two together, and holds the groups to every event type there is, so a
new event is put in one of them on purpose.
"""

from __future__ import annotations

from milk_tui.model.bus_event import BusEvent

PRINTED = (
    "turn_started",
    "route_decided",
    "text_delta",
    "thinking_delta",
    "tool_call",
    "tool_result",
    "need_changed",
    "percept_recorded",
    "percept_updated",
    "percept_deleted",
    "escalation_started",
    "escalation_finished",
    "usage",
    "state_changed",
    "turn_completed",
    "turn_failed",
    "notice",
    "reply_cut",
    "reply_truncated",
    "permission_decided",
    "permissions_denied",
    "server_starting",
    "server_countdown",
    "server_ready",
    "server_failed",
    "server_stopped",
    "workflow_started",
    "workflow_progress",
    "workflow_delta",
    "workflow_questions",
    "workflow_finished",
    "tasks_changed",
)
"""What a ``-p`` run can publish, each printed as one JSON line."""

NOT_PRINTED = ("session_changed", "request_sent")
"""``session_changed``: the panes' view model, the whole committed session again after every
turn and at the start.  A reader of the stream has the turn in ``turn_completed`` and the
session in ``sessions show --json``; printing it would repeat the session's tokens and
contexts.  ``request_sent``: when the TUI may repaint (docs/adr/0045); a reader of the
stream waits for the reply's first event, which follows it anyway."""

TUI_ONLY = (
    "routing_pinned",
    "permission_requested",
    "question_asked",
    "agents_changed",
    "store_changed",
)
"""Published only where a user is there to act (``-p`` never asks, pins or reloads)."""


def printed(event: BusEvent) -> bool:
    return event.type not in NOT_PRINTED
