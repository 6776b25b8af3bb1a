"""Keep the valid part of a config: every bad value, entry or name is one warning, the rest
loads (docs/adr/0021-configuration-that-follows-the-user.md).

What is left out for a problem is the smallest thing that holds it and can go without
changing what remains: a top-level key, a key inside a table (``loop_detection``, an
agent's ``limits``) or an agent's tuning key (``temperature``, ``timeout_secs``) falls back
to its default; an agent whose name, provider, address or credentials are bad, and a bad
entry of another list (an MCP server, an ``agent_tools`` entry), is left out whole — half an
agent would talk to the wrong place.
Of two agents with one name the first is kept; ``agent`` / ``escalation_agent`` naming no
entry fall back to the default choice, and the warning names which agent that is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from milk_tui.config.agent_tools import AgentToolEntry, agent_tool_problems, claude_needs_skip
from milk_tui.config.go_keys import RULES_KEYS
from milk_tui.config.settings import MilkConfig

MAX_REPAIRS = 500
"""Each round leaves one thing out; a config with more problems than this is not a config."""

AGENT_IDENTITY_KEYS = frozenset(
    {"name", "provider", "url", "endpoint_url", "chat_path", "model", "api_key", "token_cmd",
     "headers", "bin", "aws_region", "aws_key_id", "aws_secret", "aws_token", "aws_refresh_cmd"}
)  # fmt: skip
"""Agent keys that say where or who the agent is: a bad value leaves the agent out (half an
agent would talk to the wrong place); any other bad agent value falls back to its default."""

Describe = Callable[[tuple[Any, ...], ErrorDetails], str]
"""Formats one validation error (location already in the file's own indices)."""


class Unrepairable(Exception):
    """A problem outside the file (an environment override) or one nothing can be left out
    for; carries the error to report."""

    def __init__(self, error: ErrorDetails) -> None:
        super().__init__(str(error.get("msg", "")))
        self.error = error


def validate_keeping_valid(
    data: dict[str, Any], describe: Describe, overridden: Callable[[str], bool]
) -> tuple[MilkConfig, list[str], dict[str, list[int]]]:
    """(config, one warning per thing left out, each list key's surviving original indices).
    ``overridden(key)``: the key comes from the environment, which is not repaired."""
    data = dict(data)
    origin = {k: list(range(len(v))) for k, v in data.items() if isinstance(v, list)}
    warnings: list[str] = []
    for _ in range(MAX_REPAIRS):
        try:
            return MilkConfig(**data), warnings, origin
        except ValidationError as e:
            error = e.errors()[0]
        loc = tuple(error.get("loc", ()))
        if not loc or overridden(str(loc[0])) or loc[0] not in data:
            raise Unrepairable(error)
        shown = _original_loc(loc, origin)
        warnings.append(f"{describe(shown, error)}; {_leave_out(data, loc, origin)}")
    raise Unrepairable(error)


def _original_loc(loc: tuple[Any, ...], origin: dict[str, list[int]]) -> tuple[Any, ...]:
    key = loc[0]
    if len(loc) > 1 and isinstance(loc[1], int) and key in origin:
        return (key, origin[key][loc[1]], *loc[2:])
    return loc


def _leave_out(data: dict[str, Any], loc: tuple[Any, ...], origin: dict[str, list[int]]) -> str:
    """Remove what holds the error at ``loc`` from ``data``; say what became of it."""
    key = loc[0]
    value = data[key]
    if isinstance(value, list) and len(loc) > 1 and isinstance(loc[1], int):
        entry = value[loc[1]]
        if key == "agents" and isinstance(entry, dict) and len(loc) > 2:
            kept = _without_setting(entry, loc[2:])
            if kept is not None:
                data[key] = [*value[: loc[1]], kept, *value[loc[1] + 1 :]]
                return "the default is used"
        data[key] = [*value[: loc[1]], *value[loc[1] + 1 :]]
        del origin[key][loc[1]]
        return f"{_entry_name(key, entry)} left out"
    if isinstance(value, dict) and len(loc) > 1 and loc[1] in value:
        data[key] = {k: v for k, v in value.items() if k != loc[1]}
        return "the default is used"
    del data[key]
    origin.pop(key, None)
    return "the default is used"


def _without_setting(entry: dict[str, Any], loc: tuple[Any, ...]) -> dict[str, Any] | None:
    """The agent entry without the bad tuning value at ``loc`` (a ``limits`` key, a sampling
    key, a timeout); None when the value says where or who the agent is."""
    if loc[0] in AGENT_IDENTITY_KEYS or loc[0] not in entry:
        return None
    limits = entry.get("limits")
    if loc[0] == "limits" and len(loc) > 1 and isinstance(limits, dict) and loc[1] in limits:
        return {**entry, "limits": {k: v for k, v in limits.items() if k != loc[1]}}
    return {k: v for k, v in entry.items() if k != loc[0]}


def _entry_name(key: str, entry: Any) -> str:
    what = {"agents": "agent", "mcp_servers": "MCP server", "agent_tools": "entry"}.get(key, "item")
    name = entry.get("name") or entry.get("agent") if isinstance(entry, dict) else None
    return f"{what} '{name}'" if isinstance(name, str) and name else f"this {what}"


def repair_selection(
    cfg: MilkConfig, where: Callable[[str], str], origin: dict[str, list[int]]
) -> list[str]:
    """Duplicate agent names (the first kept), ``agent`` / ``escalation_agent`` naming no
    entry (the default choice, named), agent tools that cannot run (left out)."""
    out: list[str] = []
    seen: dict[str, int] = {}
    kept = []
    index = origin.get("agents") or list(range(len(cfg.agents)))
    for i, a in enumerate(cfg.agents):
        at = index[i] if i < len(index) else i
        first = seen.setdefault(a.name.lower(), at)
        if first != at:
            out.append(
                f"{where('agents')}: key 'agents[{at}].name': agent name '{a.name}' is used "
                f"twice; the first (agents[{first}]) is kept"
            )
            continue
        kept.append(a)
    cfg.agents = kept
    names = ", ".join(a.name for a in cfg.effective_agents())
    for key in ("agent", "escalation_agent"):
        value = getattr(cfg, key)
        if value and cfg.find_agent(value) is None:
            setattr(cfg, key, "")
            chosen = (
                cfg.escalation_agent_config().name
                if key == "escalation_agent"
                else getattr(cfg.primary_agent(), "name", "")
            )
            using = f"using '{chosen}'" if chosen else "no primary agent is configured"
            out.append(
                f"{where(key)}: key '{key}': no agent named '{value}' in agents[] "
                f"(defined: {names}); {using}"
            )
    return out + _drop_unrunnable_tools(cfg, where)


def _drop_unrunnable_tools(cfg: MilkConfig, where: Callable[[str], str]) -> list[str]:
    errors, warnings = agent_tool_problems(cfg)
    if not errors:
        return warnings

    def runnable(entries: list[AgentToolEntry]) -> list[AgentToolEntry]:
        return [
            e
            for e in entries
            if not (e.on and (t := cfg.find_agent(e.agent)) and claude_needs_skip(e, t))
        ]

    cfg.agent_tools = runnable(cfg.agent_tools)
    for a in cfg.agents:
        a.tools = runnable(a.tools)
    return [f"{where('agent_tools')}: {e}; left out" for e in errors] + warnings


def usable_rules(rules: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``rules`` without values of the wrong type (the router's default is used for those),
    and one "key …: expected …" text per value left out.  A number may be written as a
    string ("30"), as the router reads it; a list must be a list of strings."""
    kept: dict[str, Any] = {}
    problems = []
    for k, v in rules.items():
        want = RULES_KEYS.get(k)
        ok = (
            want is None
            or (want is int and _is_int(v))
            or (want is list and isinstance(v, list) and all(isinstance(x, str) for x in v))
            or (want is str and isinstance(v, str))
            or (want is float and _is_number(v))
        )
        if ok:
            kept[k] = v
        else:
            what = {
                int: "an integer",
                float: "a number",
                list: "a list of strings",
                str: "a string",
            }[want or str]
            got = f"got a list of {len(v)} items" if isinstance(v, list) else f"got {v!r}"
            problems.append(f"key 'rules.{k}': expected {what} ({got}); the default is used")
    return kept, problems


def _is_number(v: Any) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return not isinstance(v, bool | list | dict)


def _is_int(v: Any) -> bool:
    try:
        int(v)
    except (TypeError, ValueError):
        return False
    return not isinstance(v, float | list | dict)
