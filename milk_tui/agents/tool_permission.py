"""The tool loop's permission hook: each call becomes a ``PermissionQuestion`` for the check
the engine put on the request (``AgentRequest.ask_permission``), so every backend's calls
meet the same policy (docs/adr/0011-permissions-in-one-place.md).

This module only describes a call — its tool's effect and which of its paths leave the
working folder, resolved by ``agents/tools/paths.py`` exactly as the tools resolve them;
what is allowed is decided by the engine.
"""

from __future__ import annotations

import json
from typing import Any

from milk_tui.agents.base import (
    AgentRequest,
    PermissionAnswer,
    PermissionQuestion,
    ToolOutcome,
    ToolSpec,
)
from milk_tui.agents.round_backend import ToolCall
from milk_tui.agents.tool_calls import BeforeTool
from milk_tui.agents.tools.paths import outside_paths

DENIED_PREFIX = "permission denied"


def denial_message(answer: PermissionAnswer) -> str:
    """What the model is told about a denied call (a reason is always given)."""
    reason = answer.reason.strip() or "the user said no"
    return f"{DENIED_PREFIX}: {reason}"


def question_for(agent_name: str, cwd: str, spec: ToolSpec, call: ToolCall) -> PermissionQuestion:
    try:
        parsed = json.loads(call.arguments or "{}")
    except ValueError:
        parsed = None  # the tool box reports the bad JSON; the effect still decides
    args: dict[str, Any] = parsed if isinstance(parsed, dict) else {}
    return PermissionQuestion(
        agent_name=agent_name,
        tool_name=call.name,
        tool_input=args,
        effect=spec.effect,
        outside_paths=outside_paths(cwd, args, spec.path_args),
    )


def permission_hook(agent_name: str, request: AgentRequest) -> BeforeTool | None:
    """The ``before_tool`` check for one turn; None when the request carries no check."""
    ask = request.ask_permission
    if ask is None or request.tools is None:
        return None
    specs = {s.name: s for s in request.tools.specs()}
    cwd = request.cwd

    async def before_tool(call: ToolCall) -> ToolOutcome | None:
        spec = specs.get(call.name)
        if spec is None:
            return None  # unknown tool: the tool box says so
        answer = await ask(question_for(agent_name, cwd, spec, call))
        if answer.allow:
            return None
        return ToolOutcome(denial_message(answer), is_error=True)

    return before_tool
