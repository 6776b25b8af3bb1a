"""The tool loop's permission hook: each call becomes a ``PermissionQuestion`` for the check
the engine put on the request (``AgentRequest.ask_permission``), so every backend's calls
meet the same policy (docs/adr/0011-permissions-in-one-place.md).

This module only describes a call — its tool's effect and which of its paths leave the
working folder; what is allowed is decided by the engine.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
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

DENIED_PREFIX = "permission denied"


def denial_message(answer: PermissionAnswer) -> str:
    """What the model is told about a denied call (a reason is always given)."""
    reason = answer.reason.strip() or "the user said no"
    return f"{DENIED_PREFIX}: {reason}"


def resolve_path(cwd: str, value: str) -> Path:
    """``value`` as the tool would open it: ``~`` expanded, relative to ``cwd``, ``..`` and
    symlinks resolved (a missing tail is resolved as far as it exists)."""
    p = Path(os.path.expanduser(value))
    if not p.is_absolute():
        p = Path(cwd) / p
    return p.resolve(strict=False)


def outside_paths(
    cwd: str, arguments: dict[str, Any], path_args: tuple[str, ...]
) -> tuple[str, ...]:
    """The path arguments that resolve outside ``cwd``, as the model wrote them."""
    root = Path(cwd).resolve()
    out: list[str] = []
    for name in path_args:
        value = arguments.get(name)
        if not isinstance(value, str) or not value:
            continue
        if not resolve_path(cwd, value).is_relative_to(root):
            out.append(value)
    return tuple(out)


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
