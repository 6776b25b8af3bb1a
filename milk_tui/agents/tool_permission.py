"""The tool loop's permission hook: each call becomes a ``PermissionQuestion`` for the check
the engine put on the request (``AgentRequest.ask_permission``), so every backend's calls
meet the same policy (docs/adr/0011-permissions-in-one-place.md).

This module only describes a call — its tool's effect, every path resolved by
``agents/tools/paths.py`` exactly as the tools resolve them, which leave the working
folder, and what "Always" would grant (``grant_keys.py``); what is allowed is decided by
the engine.  An allowed call's resolved paths are pinned for the tool, which refuses to act
on a path that resolves elsewhere by then (docs/adr/0033-path-first-permissions.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from milk_tui.agents.base import (
    AgentRequest,
    PermissionAnswer,
    PermissionQuestion,
    ToolEffect,
    ToolOutcome,
    ToolSpec,
)
from milk_tui.agents.grant_keys import SHELL_TOOL, exact_grant, path_key, shell_grant
from milk_tui.agents.round_backend import ToolCall
from milk_tui.agents.shell_paths import outside_words
from milk_tui.agents.tool_calls import BeforeTool
from milk_tui.agents.tools.paths import CallPath, call_paths, pin

DENIED_PREFIX = "permission denied"


def denial_message(answer: PermissionAnswer) -> str:
    """What the model is told about a denied call (a reason is always given)."""
    reason = answer.reason.strip() or "the user said no"
    return f"{DENIED_PREFIX}: {reason}"


def effect_of(spec: ToolSpec) -> ToolEffect:
    """A tool that declares no effect is asked about like one that runs something."""
    return spec.effect or "run"


def path_question(
    agent_name: str,
    tool_name: str,
    args: dict[str, Any],
    paths: tuple[CallPath, ...],
    *,
    effect: ToolEffect = "run",
    always_rules: tuple[str, ...] = (),
) -> PermissionQuestion:
    """The question for a call with these resolved ``paths``: "Always" on one with a path
    outside the folder grants the tool on exactly its resolved paths (one grant a line),
    else the tool (for ``bash``: the command's prefix, with every command as the separate,
    wider choice)."""
    outside = tuple(p.raw for p in paths if not p.inside)
    grant_all = ""
    command = args.get("command")
    if outside and tool_name == SHELL_TOOL and isinstance(command, str):
        # a path grant "bash:/x" would read as a prefix grant: only this command, exactly
        grant = exact_grant(command)
    elif outside:
        grant = "\n".join(dict.fromkeys(path_key(tool_name, p.resolved) for p in paths))
    elif tool_name == SHELL_TOOL and isinstance(command, str):
        grant, grant_all = shell_grant(command), SHELL_TOOL
    else:
        grant = tool_name
    return PermissionQuestion(
        agent_name=agent_name,
        tool_name=tool_name,
        tool_input=args,
        outside_paths=outside,
        resolved_paths=tuple(p.resolved for p in paths),
        grant=grant,
        grant_all=grant_all,
        effect=effect,
        always_rules=always_rules,
    )


def question_for(
    agent_name: str, root: Path, spec: ToolSpec, call: ToolCall
) -> tuple[PermissionQuestion, tuple[CallPath, ...]]:
    """The question for ``call`` in the working folder ``root`` (already resolved), and
    the call's resolved paths."""
    try:
        parsed = json.loads(call.arguments or "{}")
    except ValueError:
        parsed = None  # the tool box reports the bad JSON; the effect still decides
    args: dict[str, Any] = parsed if isinstance(parsed, dict) else {}
    paths = call_paths(root, args, spec.path_args)
    if call.name == SHELL_TOOL and isinstance(command := args.get("command"), str):
        paths += outside_words(root, command)
    return path_question(agent_name, call.name, args, paths, effect=effect_of(spec)), paths


def permission_hook(agent_name: str, request: AgentRequest) -> BeforeTool | None:
    """The ``before_tool`` check for one turn; None when the request carries no check."""
    ask = request.ask_permission
    if ask is None or request.tools is None:
        return None
    specs = {s.name: s for s in request.tools.specs()}
    root = Path(request.cwd).resolve()  # once a turn, as the tool box resolves it

    async def before_tool(call: ToolCall) -> ToolOutcome | None:
        spec = specs.get(call.name)
        if spec is None:
            return None  # unknown tool: the tool box says so
        question, paths = question_for(agent_name, root, spec, call)
        answer = await ask(question)
        if answer.allow:
            # run_calls runs the tool in this call's context: it sees what was decided
            pin({p.raw: p.resolved for p in paths})
            return None
        return ToolOutcome(denial_message(answer), is_error=True)

    return before_tool
