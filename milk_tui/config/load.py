"""Read a config file (TOML or JSON) into ``MilkConfig`` with one clear error on failure."""

from __future__ import annotations

import json
import os
import stat
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_settings import SettingsError

from milk_tui.config.agent_tools import agent_tool_problems
from milk_tui.config.loop_detection import loop_detection_warnings
from milk_tui.config.mcp import config_warnings as mcp_config_warnings
from milk_tui.config.otel import otel_warnings
from milk_tui.config.paths import default_config_file
from milk_tui.config.secrets import SECRET_AGENT_KEYS, header_secrets
from milk_tui.config.settings import AgentConfig, AgentLimits, MilkConfig

GO_INERT_KEYS = {
    "default_route", "update_check", "update_channel", "update_last_check",
    "update_skipped_version", "local_memory_reinjection_turns", "local_memory_reinjection_bytes",
}  # fmt: skip
"""Go milk keys with no effect on a conversation (self-update bookkeeping, keys Go writes but
never reads): accepted silently."""

GO_UNSUPPORTED_KEYS = {
    "colorization", "debug_claude_code", "debug_local",
    "debug_subprocess", "aws_auth_refresh", "remote_oversight",
    "config_editors", "experimental_permission_management",
    "experimental_lazy_history_management", "direct_bash", "direct_bash_allow",
    "show_reasoning",
}  # fmt: skip
"""Go milk keys that load but do nothing here yet: each one set is named in a warning."""

GO_ONLY_KEYS = GO_INERT_KEYS | GO_UNSUPPORTED_KEYS

GO_ONLY_AGENT_KEYS = {
    "system_prompt_tier", "extra_args", "run_cmd", "api_format",
    "tls_ca_cert", "aws_service", "prompt_caching", "settings", "action_type", "model_type",
    "smolagent_tools", "max_steps", "authorized_imports",
}  # fmt: skip
UNSUPPORTED_AGENT_KEYS = GO_ONLY_AGENT_KEYS | {"prompt", "prompt_file"}
"""Agent keys that load but do nothing here yet (named in a warning when present)."""


class ConfigError(Exception):
    """One message naming the file, the key and what was expected."""


def _read(path: Path) -> dict[str, Any]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read config file ({e.strerror})") from None
    try:
        if path.suffix.lower() == ".toml":
            data = tomllib.loads(raw.decode("utf-8"))
        else:
            data = json.loads(raw.decode("utf-8") or "{}")
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None
    except json.JSONDecodeError as e:
        raise ConfigError(
            f"{path}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}"
        ) from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: config file is not UTF-8 text") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected an object at the top level, got {type(data).__name__}")
    return data


def _unknown_key_warnings(path: Path | str, data: dict[str, Any]) -> list[str]:
    warnings = []
    known = set(MilkConfig.model_fields) | GO_ONLY_KEYS
    for k in data:
        if k not in known:
            warnings.append(f"{path}: unknown key '{k}' ignored")
    # Only keys set to something: an empty list or a false flag asks for nothing we lack.
    unsupported = [k for k in data if k in GO_UNSUPPORTED_KEYS and data[k]]
    if unsupported:
        warnings.append(f"{path}: {_not_supported(unsupported)}")
    warnings += loop_detection_warnings(str(path), data.get("loop_detection"))
    warnings += otel_warnings(str(path), data.get("otel"))
    agent_known = set(AgentConfig.model_fields) | GO_ONLY_AGENT_KEYS
    limit_known = set(AgentLimits.model_fields)
    for i, a in enumerate(data.get("agents") or []):
        if not isinstance(a, dict):
            continue
        for k in a:
            if k not in agent_known:
                warnings.append(f"{path}: unknown key 'agents[{i}].{k}' ignored")
        unsupported = [f"agents[{i}].{k}" for k in a if k in UNSUPPORTED_AGENT_KEYS and a[k]]
        if unsupported:
            warnings.append(f"{path}: {_not_supported(unsupported)}")
        for k in (a.get("limits") or {}) if isinstance(a.get("limits"), dict) else {}:
            if k not in limit_known:
                warnings.append(f"{path}: unknown key 'agents[{i}].limits.{k}' ignored")
    return warnings


def _not_supported(keys: list[str]) -> str:
    names = ", ".join(f"'{k}'" for k in keys)
    return f"not supported by milk-tui yet, ignored: {names}"


def _format_validation(path: Path | None, err: ValidationError) -> str:
    first = err.errors()[0]
    key = ".".join(
        f"[{p}]" if isinstance(p, int) else str(p) for p in first.get("loc", ())
    ).replace(".[", "[")
    loc = first.get("loc", ())
    env = _env_vars(str(loc[0])) if loc else []
    where = env[0] if env else (str(path) if path else "environment")
    got = _describe_input(first.get("loc", ()), first.get("input"))
    msg = str(first.get("msg", "invalid value")).removeprefix("Value error, ")
    return f"{where}: key '{key}': {msg} ({got})"


SECRET_KEYS = frozenset({"api_key", "aws_key_id", "aws_secret", "aws_token", "headers"})
"""Keys whose values never appear in an error (secrets stay out of every message);
``headers`` may carry Authorization."""


def _describe_input(loc: tuple[Any, ...], got: Any) -> str:
    """What the bad value was, without echoing secrets: containers (an agent entry holds its
    api_key) are described by shape, and values under a secret key only by type."""
    if isinstance(got, dict):
        return "got an object with keys " + (", ".join(map(str, got)) or "none")
    if isinstance(got, list):
        return f"got a list of {len(got)} items"
    if any(part in SECRET_KEYS for part in loc):
        return f"got a value of type {type(got).__name__}"
    return f"got {got!r}"


def validation_warnings(cfg: MilkConfig) -> list[str]:
    """Non-fatal problems: reported at start-up, the app still runs."""
    out = []
    for a in cfg.agents:
        if a.kind in ("openai",) and not a.url:
            out.append(f"agent '{a.name}': provider '{a.provider or 'local'}' has no url")
        if a.uses_bearer and not (a.api_key or a.token_cmd):
            out.append(f"agent '{a.name}': provider '{a.provider}' needs api_key or token_cmd")
    refs = {a.name: a.mcp_servers for a in cfg.agents if a.mcp_servers}
    out.extend(mcp_config_warnings(cfg.mcp_servers, refs))
    return out


def validation_error(cfg: MilkConfig) -> str:
    """The first problem no run can work around ("" when none): an agent name used twice, or
    ``agent`` / ``escalation_agent`` naming no entry (another agent must never stand in
    silently for the one the user chose)."""
    seen: set[str] = set()
    for i, a in enumerate(cfg.agents):
        if a.name.lower() in seen:
            return f"key 'agents[{i}].name': agent name '{a.name}' is used twice"
        seen.add(a.name.lower())
    names = ", ".join(a.name for a in cfg.effective_agents())
    for key in ("agent", "escalation_agent"):
        value = getattr(cfg, key)
        if value and cfg.find_agent(value) is None:
            return f"key '{key}': no agent named '{value}' in agents[] (defined: {names})"
    return ""


def _env_vars(field: str) -> list[str]:
    """The environment variables that set a top-level key (``MILK_AGENTS``, or nested ones
    such as ``MILK_LOOP_DETECTION__ENABLED``); names match case-insensitively, as
    pydantic-settings reads them."""
    name = f"MILK_{field}".upper()
    return sorted(k for k in os.environ if k.upper() == name or k.upper().startswith(name + "__"))


def _env_problem(e: SettingsError) -> str:
    """One line for a value pydantic-settings could not even parse (JSON of a list or object
    key), naming the variable; its value is not echoed, as it may hold an api_key."""
    field = str(e).split('"')[1] if str(e).count('"') >= 2 else ""
    for var in _env_vars(field):
        try:
            json.loads(os.environ[var])
        except json.JSONDecodeError as je:
            return f"{var}: invalid JSON at character {je.pos}: {je.msg}"
    return f"{', '.join(_env_vars(field)) or 'environment'}: {e}"


def _env_key_warnings() -> list[str]:
    """Unknown keys inside JSON-valued overrides (``MILK_AGENTS``, ``MILK_LOOP_DETECTION``),
    named with their variable."""
    out = []
    for field in ("agents", "loop_detection"):
        for var in _env_vars(field):
            try:
                value = json.loads(os.environ[var])
            except json.JSONDecodeError:
                continue
            out += [w for w in _unknown_key_warnings(var, {field: value}) if "unknown key" in w]
    return out


def secret_file_warning(path: Path, data: dict[str, Any]) -> str:
    """One warning when a config holding a secret can be read by group or others."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return ""
    if not mode & (stat.S_IRGRP | stat.S_IROTH):
        return ""
    agents = data.get("agents") if isinstance(data.get("agents"), list) else []
    for i, a in enumerate(agents or []):
        if not isinstance(a, dict):
            continue
        held = [k for k in SECRET_AGENT_KEYS if a.get(k)]
        headers = a.get("headers")
        if isinstance(headers, dict) and header_secrets(headers):
            held.append("headers")
        if held:
            return (
                f"{path}: holds a secret (agents[{i}].{held[0]}) and is readable by "
                f"{'others' if mode & stat.S_IROTH else 'the group'} (mode "
                f"{stat.S_IMODE(mode):03o}); fix: chmod 600 {path}"
            )
    return ""


def load_config(path: Path | str | None = None) -> tuple[MilkConfig, list[str], Path | None]:
    """Returns (config, warnings, the file used or None when running on defaults)."""
    p = Path(path) if path else default_config_file()
    data: dict[str, Any] = {}
    warnings: list[str] = []
    if p is not None:
        data = _read(p)
        overridden = {k for k in data if _env_vars(k)}
        warnings.extend(
            _unknown_key_warnings(p, {k: v for k, v in data.items() if k not in overridden})
        )
        warnings.append(secret_file_warning(p, data))
        data = {k: v for k, v in data.items() if k not in GO_ONLY_KEYS}
    warnings.extend(_env_key_warnings())
    try:
        cfg = MilkConfig(**data)
    except ValidationError as e:
        raise ConfigError(_format_validation(p, e)) from None
    except SettingsError as e:
        raise ConfigError(_env_problem(e)) from None
    problem = validation_error(cfg)
    if problem:
        field = problem.split("'")[1].split("[")[0]
        env = _env_vars(field)
        raise ConfigError(f"{env[0] if env else (p or 'environment')}: {problem}")
    warnings.extend(validation_warnings(cfg))
    tool_errors, tool_warnings = agent_tool_problems(cfg)
    if tool_errors:
        raise ConfigError(f"{p or 'environment'}: {tool_errors[0]}")
    warnings.extend(tool_warnings)
    return cfg, [w for w in warnings if w], p
