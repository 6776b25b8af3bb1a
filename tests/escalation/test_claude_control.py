"""The Claude CLI control protocol, line by line (the fast layer; the real CLI checks the
same shapes in test_claude_permissions_real.py)."""

from __future__ import annotations

from typing import Any

from milk_tui.agents import base as ab
from milk_tui.agents.claude_control import NO_ANSWER, answer_control, denials
from milk_tui.agents.claude_stream import ResultInfo

QUESTION = {
    "question": "Tabs or spaces?",
    "header": "Style",
    "multiSelect": False,
    "options": [{"label": "Tabs", "description": "t"}, {"label": "Spaces", "description": "s"}],
}


def _req(tool: str, tool_input: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "type": "control_request",
        "request_id": "r1",
        "request": {"subtype": "can_use_tool", "tool_name": tool, "input": tool_input, **extra},
    }


def _request(**kw: Any) -> ab.AgentRequest:
    return ab.AgentRequest(slot="escalation", prompt="p", cwd="/w", **kw)


async def test_unknown_subtypes_are_refused_with_an_error() -> None:
    line = await answer_control(
        "claude", {"request_id": "r9", "request": {"subtype": "interrupt"}}, _request(), {}
    )
    assert line["response"] == {
        "subtype": "error",
        "request_id": "r9",
        "error": "milk-tui does not handle 'interrupt'",
    }


async def test_a_question_goes_to_ask_user_and_the_answers_back_as_updated_input() -> None:
    got: list[tuple[str, list[dict[str, Any]]]] = []

    async def ask_user(agent: str, questions: list[dict[str, Any]]) -> dict[str, str] | None:
        got.append((agent, questions))
        return {"Tabs or spaces?": "Spaces"}

    line = await answer_control(
        "claude",
        _req("AskUserQuestion", {"questions": [QUESTION]}),
        _request(ask_user=ask_user),
        {},
    )
    assert got == [("claude", [QUESTION])]
    assert line["response"]["response"] == {
        "behavior": "allow",
        "updatedInput": {"questions": [QUESTION], "answers": {"Tabs or spaces?": "Spaces"}},
    }


async def test_a_question_no_one_answers_is_declined_never_asked_as_a_permission() -> None:
    async def ask(q: ab.PermissionQuestion) -> ab.PermissionAnswer:
        raise AssertionError("a question is not a permission")

    line = await answer_control(
        "claude",
        _req("AskUserQuestion", {"questions": [QUESTION]}),
        _request(ask_permission=ask),
        {},
    )
    assert line["response"]["response"] == {"behavior": "deny", "message": NO_ANSWER}


async def test_permission_question_carries_the_suggested_rule_and_remembers_it() -> None:
    asked: list[ab.PermissionQuestion] = []

    async def ask(q: ab.PermissionQuestion) -> ab.PermissionAnswer:
        asked.append(q)
        return ab.PermissionAnswer(False, reason="the user said no")

    suggestion = {
        "type": "addRules",
        "behavior": "allow",
        "rules": [{"toolName": "Bash", "ruleContent": "npm test *"}],
    }
    rules: dict[str, tuple[str, ...]] = {}
    line = await answer_control(
        "claude",
        _req(
            "Bash", {"command": "npm test"}, tool_use_id="t1", permission_suggestions=[suggestion]
        ),
        _request(ask_permission=ask),
        rules,
    )
    assert asked[0].always_rules == ("Bash(npm test *)",)
    assert rules == {"t1": ("Bash(npm test *)",)}
    assert line["response"]["response"] == {
        "behavior": "deny",
        "message": "permission denied: the user said no",
    }


def test_denials_dedup_skip_questions_and_fall_back_to_the_tool_name() -> None:
    result = ResultInfo(
        is_error=False,
        text="",
        errors=[],
        session_id="s",
        stop_reason="end_turn",
        api_error_status=None,
        denials=[
            {"tool_name": "Bash", "tool_use_id": "t1", "tool_input": {"command": "npm test"}},
            {"tool_name": "Bash", "tool_use_id": "t2", "tool_input": {"command": "npm test"}},
            {"tool_name": "AskUserQuestion", "tool_use_id": "t3", "tool_input": {}},
            {"tool_name": "WebSearch", "tool_use_id": "t4", "tool_input": {"query": "x"}},
        ],
    )
    got = denials(result, {"t1": ("Bash(npm test *)",)})
    assert got == (
        ab.DeniedTool("Bash", {"command": "npm test"}, ("Bash(npm test *)",)),
        ab.DeniedTool("WebSearch", {"query": "x"}, ("WebSearch",)),
    )
    assert denials(None, {}) == ()
