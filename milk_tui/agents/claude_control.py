"""The Claude CLI's control protocol: answering its ``can_use_tool`` requests, and the
calls it was refused by the end of the turn.

With ``--permission-prompt-tool stdio`` the CLI writes a ``control_request`` line for each
tool call its own rules do not allow, and for every ``AskUserQuestion``; the answer goes
back as a ``control_response`` line on stdin (shapes verified against the real CLI 2.1.x:
tests/escalation/test_claude_permissions_real.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from milk_tui.agents.base import AgentRequest, DeniedTool, PermissionAnswer, PermissionQuestion
from milk_tui.agents.claude_settings import suggested_rules
from milk_tui.agents.claude_stream import ResultInfo
from milk_tui.agents.tool_permission import denial_message, path_question
from milk_tui.agents.tools.paths import call_paths

ASK_USER_TOOL = "AskUserQuestion"
"""The CLI's question tool: its request is answered with the user's choices
(``updatedInput.answers``), not with a permission."""

NO_ANSWER = "the user did not answer the questions"

PATH_INPUTS = ("file_path", "path", "notebook_path")
"""The CLI's tool inputs that name a file or folder (Read/Write/Edit, Glob/Grep/LS,
NotebookEdit): resolved like milk's own tools' paths, so one outside the working folder is
decided path first (docs/adr/0033-path-first-permissions.md)."""
GLOB_TOOL, GLOB_PATTERN = "Glob", ("pattern",)
"""Glob's pattern may itself be absolute or climb (``/etc/**``, ``../../**/*.env``): it is
a path too (``src/**/*.py`` resolves inside)."""


async def answer_control(
    agent_name: str,
    req: dict[str, Any],
    request: AgentRequest,
    rules_by_call: dict[str, tuple[str, ...]],
) -> dict[str, Any]:
    """The ``control_response`` line for one request; anything we cannot handle is
    refused, never left hanging.  ``rules_by_call`` collects, per tool call, the rules the
    CLI suggested, for granting a refused call after the turn."""
    request_id = req.get("request_id", "")
    body = req.get("request") or {}
    if body.get("subtype") != "can_use_tool":
        return {
            "type": "control_response",
            "response": {
                "subtype": "error",
                "request_id": request_id,
                "error": f"milk-tui does not handle {body.get('subtype')!r}",
            },
        }
    given = body.get("input")
    tool_input: dict[str, Any] = given if isinstance(given, dict) else {}
    tool_name = str(body.get("tool_name") or "")
    if tool_name == ASK_USER_TOOL:
        decision = await _answer_questions(agent_name, tool_input, request)
    else:
        rules = suggested_rules(body)
        rules_by_call[str(body.get("tool_use_id") or "")] = rules
        decision = await _answer_permission(agent_name, tool_name, tool_input, rules, request)
    return {
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request_id, "response": decision},
    }


async def _answer_permission(
    agent_name: str,
    tool_name: str,
    tool_input: dict[str, Any],
    rules: tuple[str, ...],
    request: AgentRequest,
) -> dict[str, Any]:
    answer = PermissionAnswer(False, reason="no one can approve tools in this run")
    if request.ask_permission is not None:
        answer = await request.ask_permission(
            claude_question(agent_name, tool_name, tool_input, rules, request.cwd)
        )
    if answer.allow:
        return {"behavior": "allow", "updatedInput": tool_input}
    return {"behavior": "deny", "message": denial_message(answer)}


def claude_question(
    agent_name: str,
    tool_name: str,
    tool_input: dict[str, Any],
    rules: tuple[str, ...],
    cwd: str,
) -> PermissionQuestion:
    """The CLI's own rules are what "Always" stores, except for a path outside the folder:
    that is a milk grant of the tool on exactly the resolved path."""
    names = PATH_INPUTS + (GLOB_PATTERN if tool_name == GLOB_TOOL else ())
    paths = call_paths(Path(cwd).resolve(), tool_input, names)
    outside = any(not p.inside for p in paths)
    return path_question(
        agent_name, tool_name, tool_input, paths, always_rules=() if outside else rules
    )


async def _answer_questions(
    agent_name: str, tool_input: dict[str, Any], request: AgentRequest
) -> dict[str, Any]:
    """The CLI takes the answers as ``updatedInput.answers``: question text → the chosen
    label (several comma-separated) or the user's own words (the CLI's sdk-tools.d.ts,
    ``AskUserQuestionInput``)."""
    questions = [q for q in tool_input.get("questions") or [] if isinstance(q, dict)]
    answers = None
    if request.ask_user is not None and questions:
        answers = await request.ask_user(agent_name, questions)
    if not answers:
        return {"behavior": "deny", "message": NO_ANSWER}
    return {"behavior": "allow", "updatedInput": {**tool_input, "answers": answers}}


def denials(
    result: ResultInfo | None, rules_by_call: dict[str, tuple[str, ...]]
) -> tuple[DeniedTool, ...]:
    """The turn's refused calls (each tool and input once), with the rules the CLI suggested
    when it asked; a question the user left unanswered is no permission to grant."""
    out: dict[str, DeniedTool] = {}
    for d in result.denials if result is not None else []:
        name = str(d.get("tool_name") or "")
        if not name or name == ASK_USER_TOOL:
            continue
        given = d.get("tool_input")
        tool_input = given if isinstance(given, dict) else {}
        rules = rules_by_call.get(str(d.get("tool_use_id") or "")) or (name,)
        key = json.dumps([name, tool_input], sort_keys=True, default=str)
        out.setdefault(key, DeniedTool(name, tool_input, rules))
    return tuple(out.values())
