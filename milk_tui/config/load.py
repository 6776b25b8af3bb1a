"""Read a config file (TOML or JSON) into ``MilkConfig`` with one clear error on failure."""

from __future__ import annotations

import json
import os
import stat
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from milk_tui.config.agent_tools import AgentToolEntry
from milk_tui.config.env_overrides import EnvOverrideError
from milk_tui.config.errors import ConfigError
from milk_tui.config.go_keys import RULES_KEYS, asks_for_something
from milk_tui.config.loop_detection import loop_detection_warnings
from milk_tui.config.mcp import McpServerConfig
from milk_tui.config.mcp import config_warnings as mcp_config_warnings
from milk_tui.config.otel import otel_warnings
from milk_tui.config.paths import resolve_config_file
from milk_tui.config.repair import (
    Unrepairable,
    repair_selection,
    usable_rules,
    validate_keeping_valid,
)
from milk_tui.config.secrets import SECRET_AGENT_KEYS, env_secrets, header_secrets
from milk_tui.config.settings import AgentConfig, AgentLimits, MilkConfig

GO_INERT_KEYS = {
    "default_route", "update_channel", "update_last_check",
    "update_skipped_version", "local_memory_reinjection_turns", "local_memory_reinjection_bytes",
}  # fmt: skip
"""Go milk keys with no effect on a conversation (self-update bookkeeping, keys Go writes but
never reads): accepted silently."""

GO_UNSUPPORTED_KEYS = {
    "debug_claude_code", "debug_local",
    "debug_subprocess", "aws_auth_refresh",
    "experimental_permission_management",
    "experimental_lazy_history_management",
    "show_reasoning",
}  # fmt: skip
"""Go milk keys that load but do nothing here yet: each one set is named in a warning."""

GO_ONLY_KEYS = GO_INERT_KEYS | GO_UNSUPPORTED_KEYS

GO_ONLY_AGENT_KEYS: set[str] = set()
"""Every per-agent key of a Go config works here now; kept so a future one is named."""
UNSUPPORTED_AGENT_KEYS = GO_ONLY_AGENT_KEYS
"""Agent keys that load but do nothing here yet (named in a warning when present)."""


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


def _without_nulls(value: Any) -> Any:
    """``null`` means "the default" at any depth: Go writes its nil lists, maps and pointers
    that way (``"mcp_servers": null``, ``"loop_detection": null``)."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _unknown_key_warnings(path: Path | str, data: dict[str, Any]) -> list[str]:
    warnings = []
    known = set(MilkConfig.model_fields) | GO_ONLY_KEYS
    for k in data:
        if k not in known:
            warnings.append(f"{path}: unknown key '{k}' ignored")
    # Only keys set to something: an empty, false or Go-default value asks for nothing we lack.
    warnings += [
        _not_supported(path, k)
        for k in data
        if k in GO_UNSUPPORTED_KEYS and asks_for_something(k, data[k])
    ]
    warnings += loop_detection_warnings(str(path), data.get("loop_detection"))
    warnings += _entry_key_warnings(path, data)
    rules = data.get("rules")
    for k in rules if isinstance(rules, dict) else {}:
        if k not in RULES_KEYS:
            warnings.append(f"{path}: unknown key 'rules.{k}' ignored")
    warnings += otel_warnings(str(path), data.get("otel"))
    agent_known = set(AgentConfig.model_fields) | GO_ONLY_AGENT_KEYS
    limit_known = set(AgentLimits.model_fields)
    agents = data.get("agents")
    for i, a in enumerate(agents if isinstance(agents, list) else []):
        if not isinstance(a, dict):
            continue
        for k in a:
            if k not in agent_known:
                warnings.append(f"{path}: unknown key 'agents[{i}].{k}' ignored")
        warnings += [
            _not_supported(path, f"agents[{i}].{k}")
            for k in a
            if k in UNSUPPORTED_AGENT_KEYS and asks_for_something(k, a[k])
        ]
        for k in (a.get("limits") or {}) if isinstance(a.get("limits"), dict) else {}:
            if k not in limit_known:
                warnings.append(f"{path}: unknown key 'agents[{i}].limits.{k}' ignored")
    return warnings


GO_ONLY_MCP_KEYS = ("oauth_", "tls_skip_verify")
"""Go keys (and prefixes) of an ``mcp_servers`` entry that load but do nothing here yet."""


def _entry_key_warnings(path: Path | str, data: dict[str, Any]) -> list[str]:
    """Unknown keys in the entries of ``mcp_servers``, ``agent_tools`` and an agent's
    ``tools``; a Go-only MCP key is named as unsupported when it asks for something."""
    lists: list[tuple[str, Any, set[str]]] = [
        ("mcp_servers", data.get("mcp_servers"), set(McpServerConfig.model_fields)),
        ("agent_tools", data.get("agent_tools"), set(AgentToolEntry.model_fields)),
    ]
    agents = data.get("agents")
    for i, a in enumerate(agents if isinstance(agents, list) else []):
        if isinstance(a, dict):
            lists.append((f"agents[{i}].tools", a.get("tools"), set(AgentToolEntry.model_fields)))
    out = []
    for where, entries, known in lists:
        for j, e in enumerate(entries if isinstance(entries, list) else []):
            for k in e if isinstance(e, dict) else {}:
                if k in known:
                    continue
                if where == "mcp_servers" and k.startswith(GO_ONLY_MCP_KEYS):
                    if asks_for_something(k, e[k]):
                        out.append(_not_supported(path, f"{where}[{j}].{k}"))
                else:
                    out.append(f"{path}: unknown key '{where}[{j}].{k}' ignored")
    return out


def _not_supported(path: Path | str, key: str) -> str:
    return f"{path}: key '{key}' is not supported by milk-tui yet; ignored"


def _format_validation(path: Path | None, err: ValidationError) -> str:
    first = err.errors()[0]
    return _format_error(path, tuple(first.get("loc", ())), first)


def _format_error(path: Path | None, loc: tuple[Any, ...], error: ErrorDetails) -> str:
    """One line: where (the variable of an override, else the file), the key, what was
    expected and what was given (never a secret's value)."""
    key = ".".join(f"[{p}]" if isinstance(p, int) else str(p) for p in loc).replace(".[", "[")
    env = _env_vars(str(loc[0])) if loc else []
    where = env[0] if env else (str(path) if path else "environment")
    got = _describe_input(loc, error.get("input"))
    msg = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    return f"{where}: key '{key}': {msg} ({got})"


SECRET_KEYS = frozenset({"api_key", "aws_key_id", "aws_secret", "aws_token", "headers", "token"})
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


def _env_vars(field: str) -> list[str]:
    """The environment variables that set a top-level key (``MILK_AGENTS``, or nested ones
    such as ``MILK_LOOP_DETECTION__ENABLED``); names match case-insensitively, as
    pydantic-settings reads them."""
    name = f"MILK_{field}".upper()
    return sorted(k for k in os.environ if k.upper() == name or k.upper().startswith(name + "__"))


def _env_problem(e: EnvOverrideError) -> str:
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
            return _readable_secret(path, mode, f"agents[{i}].{held[0]}")
    servers = data.get("mcp_servers") if isinstance(data.get("mcp_servers"), list) else []
    for i, m in enumerate(servers or []):
        if not isinstance(m, dict):
            continue
        env = m.get("env")
        if m.get("api_key") or (isinstance(env, dict) and env_secrets(env)):
            key = "api_key" if m.get("api_key") else "env"
            return _readable_secret(path, mode, f"mcp_servers[{i}].{key}")
    remote = data.get("remote_oversight")
    telegram = remote.get("telegram") if isinstance(remote, dict) else None
    if isinstance(telegram, dict) and telegram.get("token"):
        return _readable_secret(path, mode, "remote_oversight.telegram.token")
    return ""


def _readable_secret(path: Path, mode: int, where: str) -> str:
    return (
        f"{path}: holds a secret ({where}) and is readable by "
        f"{'others' if mode & stat.S_IROTH else 'the group'} (mode "
        f"{stat.S_IMODE(mode):03o}); fix: chmod 600 {path}"
    )


def load_config(
    path: Path | str | None = None, *, skip_broken_file: bool = False
) -> tuple[MilkConfig, list[str], Path | None]:
    """Returns (config, warnings, the file used or None when running on defaults).

    Bad values, entries and names are warnings and the valid rest loads (config/repair.py).
    A file that cannot be read or parsed raises ``ConfigError`` — or, with
    ``skip_broken_file`` (the TUI), is skipped with a warning starting "config error:"
    (its path is still returned, so ``/config`` can open it).  An environment override
    that cannot be used is always a ``ConfigError`` naming the variable."""
    p, how = (Path(path), "--config") if path else resolve_config_file()
    data: dict[str, Any] = {}
    warnings: list[str] = []
    if how == "Go milk":
        warnings.append(f"reading the Go milk config {p} as is (no milk-tui config found)")
    if p is not None:
        try:
            data = _without_nulls(_read(p))
        except ConfigError as e:
            if not skip_broken_file:
                raise
            warnings.append(f"config error: {e}; started without it (/config open to fix it)")
        overridden = {k for k in data if _env_vars(k)}
        warnings.extend(
            _unknown_key_warnings(p, {k: v for k, v in data.items() if k not in overridden})
        )
        warnings.append(secret_file_warning(p, data))
        data = {k: v for k, v in data.items() if k not in GO_ONLY_KEYS}
        if isinstance(data.get("rules"), dict):
            data["rules"], problems = usable_rules(data["rules"])
            warnings += [f"{p}: {problem}" for problem in problems]
    warnings.extend(_env_key_warnings())
    try:
        cfg, repaired, origin = validate_keeping_valid(
            data, lambda loc, err: _format_error(p, loc, err), lambda key: bool(_env_vars(key))
        )
    except Unrepairable as e:
        raise ConfigError(_format_error(p, tuple(e.error.get("loc", ())), e.error)) from None
    except EnvOverrideError as e:
        raise ConfigError(_env_problem(e)) from None
    warnings.extend(repaired)

    def where(key: str) -> str:
        env = _env_vars(key)
        return env[0] if env else str(p or "environment")

    warnings.extend(repair_selection(cfg, where, {} if _env_vars("agents") else origin))
    warnings.extend(validation_warnings(cfg))
    return cfg, [w for w in warnings if w], p
