"""Snapshots of the Claude CLI's prompts: the permission modal with the rule "Always"
stores, the question picker, and the line listing refused calls (SVGs in
snapshots/tui/test_snapshots_claude/; rules in ``snapshot_base.py``)."""

from __future__ import annotations

from milk_tui.tui.screens.permission_modal import PermissionModal
from milk_tui.tui.screens.question_modal import QuestionModal
from tui.snapshot_base import SMALL, SnapshotCase, ev, on_screen, publish

FETCH = ev.PermissionRequested(
    request_id="perm-c1",
    agent_name="claude",
    tool_name="WebFetch",
    tool_input={"url": "https://docs.example.com/api", "prompt": "list the endpoints"},
    always_rules=("WebFetch(domain:docs.example.com)",),
)

QUESTIONS = ev.QuestionAsked(
    request_id="q-1",
    agent_name="claude",
    questions=[
        {
            "question": "Which database should we use?",
            "header": "Database",
            "multiSelect": False,
            "options": [
                {"label": "PostgreSQL", "description": "server, concurrent writers"},
                {"label": "SQLite", "description": "one file, no server"},
            ],
        },
        {
            "question": "Which features do you want first?",
            "header": "Features",
            "multiSelect": True,
            "options": [
                {"label": "Auth", "description": "log in and sessions"},
                {"label": "Search", "description": "full-text search"},
                {"label": "Export", "description": "CSV download"},
            ],
        },
    ],
)

DENIED = ev.PermissionsDenied(
    agent_name="claude",
    denials=[
        ev.DeniedCall(
            tool_name="WebFetch",
            summary="https://docs.example.com/api",
            rules=("WebFetch(domain:docs.example.com)",),
        ),
        ev.DeniedCall(tool_name="mcp__tracker__create_issue", summary="title=Flaky test"),
    ],
)


class TestClaudePrompts(SnapshotCase):
    def test_claude_permission_modal_with_its_rule(self) -> None:
        assert self.shot(publish(FETCH), on_screen(PermissionModal))

    def test_question_picker(self) -> None:
        assert self.shot(publish(QUESTIONS), on_screen(QuestionModal))

    def test_question_picker_80x24(self) -> None:
        assert self.shot(publish(QUESTIONS), on_screen(QuestionModal), size=SMALL)

    def test_refused_calls_line(self) -> None:
        assert self.shot(publish(DENIED))
