"""The Claude CLI's own project permissions: ``.claude/settings.local.json`` in the folder.

"Always for this folder" on a Claude permission question stores the CLI's own allow rule
(``WebFetch(domain:example.com)``, ``Bash(npm test *)``, ``mcp__srv__tool``; the rule the CLI
suggests in its ``can_use_tool`` request) where the CLI itself reads project permissions
(https://code.claude.com/docs/en/settings: ``permissions.allow`` of the project's local
settings).  The agent passes the rules milk stored (or a file the user trusted) in
``--allowedTools`` on every run and otherwise keeps the folder's settings out of the CLI
(``claude_project``; docs/adr/0020-claude-permissions-ask-once.md,
docs/adr/0034-project-files-never-widen-permissions.md).

Writing keeps every other key of an existing file; a new file is created 0600.  A file that
is not a JSON object is never overwritten: the caller gets ``ClaudeSettingsError``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from milk_tui.config.paths import write_private

LOCAL_SETTINGS = Path(".claude") / "settings.local.json"


class ClaudeSettingsError(Exception):
    """The settings file cannot be read or written; the message names it and the cause."""


def settings_path(cwd: str) -> Path:
    return Path(cwd) / LOCAL_SETTINGS


def rule_text(tool_name: str, content: str = "") -> str:
    """The CLI's rule syntax: ``Tool`` or ``Tool(content)``."""
    return f"{tool_name}({content})" if content else tool_name


def suggested_rules(request: dict[str, Any]) -> tuple[str, ...]:
    """The allow rules a ``can_use_tool`` request suggests (``permission_suggestions``,
    seen from the real CLI 2.1.x as ``{"type": "addRules", "behavior": "allow",
    "rules": [{"toolName": …, "ruleContent": …}]}``); the bare tool name when none."""
    rules: list[str] = []
    for s in request.get("permission_suggestions") or []:
        if not isinstance(s, dict) or s.get("type") != "addRules" or s.get("behavior") != "allow":
            continue
        for r in s.get("rules") or []:
            if isinstance(r, dict) and isinstance(r.get("toolName"), str) and r["toolName"]:
                rules.append(rule_text(r["toolName"], str(r.get("ruleContent") or "")))
    if not rules and request.get("tool_name"):
        rules.append(str(request["tool_name"]))
    return tuple(dict.fromkeys(rules))


def _load(path: Path) -> dict[str, Any]:
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as e:
        raise ClaudeSettingsError(f"{path}: cannot read ({e})") from None
    try:
        data = json.loads(raw) if raw.strip() else {}
    except ValueError as e:
        raise ClaudeSettingsError(f"{path}: not valid JSON ({e}); left unchanged") from None
    if not isinstance(data, dict):
        raise ClaudeSettingsError(f"{path}: expected a JSON object; left unchanged")
    return data


def allow_rules(cwd: str) -> list[str]:
    """The folder's stored allow rules; [] when the file is missing or unreadable (the CLI
    reports a broken settings file itself)."""
    try:
        data = _load(settings_path(cwd))
    except ClaudeSettingsError:
        return []
    perms = data.get("permissions")
    allow = perms.get("allow") if isinstance(perms, dict) else None
    if not isinstance(allow, list):
        return []
    return [r for r in allow if isinstance(r, str) and r]


def add_allow_rules(cwd: str, rules: Iterable[str]) -> list[str]:
    """Add ``rules`` to ``permissions.allow`` (kept once each, order kept); returns the
    rules now stored.  Raises ``ClaudeSettingsError`` rather than lose a user's file."""
    path = settings_path(cwd)
    data = _load(path)
    perms = data.get("permissions")
    if perms is None:
        perms = data["permissions"] = {}
    if not isinstance(perms, dict):
        raise ClaudeSettingsError(f"{path}: 'permissions' is not an object; left unchanged")
    allow = perms.get("allow")
    if allow is None:
        allow = perms["allow"] = []
    if not isinstance(allow, list):
        raise ClaudeSettingsError(f"{path}: 'permissions.allow' is not a list; left unchanged")
    added = [r for r in dict.fromkeys(rules) if r and r not in allow]
    if not added:
        return [r for r in allow if isinstance(r, str)]
    allow.extend(added)
    _write(path, data)
    return [r for r in allow if isinstance(r, str)]


def _write(path: Path, data: dict[str, Any]) -> None:
    """Replace the file in one step (a crash never leaves half a JSON file); a new file is
    0600, an existing one keeps its mode."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            mode = path.stat().st_mode & 0o777
        except FileNotFoundError:
            mode = 0o600
        write_private(path, json.dumps(data, indent=2) + "\n", mode)
    except OSError as e:
        raise ClaudeSettingsError(f"{path}: cannot write ({e.strerror or e})") from None
