"""The Claude CLI's settings files that ship inside a folder, and what milk passes on.

A cloned repository can hold ``.claude/settings.json``, ``.claude/settings.local.json``
and ``.mcp.json``; the CLI itself reads them in print mode (it skips its folder-trust
dialog there, see ``claude --help`` on ``-p``), and milk used to pass the local file's
allow rules in ``--allowedTools``.  Now neither happens unless milk wrote the rule itself
(``TrustStore.milk_rules``) or the user trusted that file's current content once, in a
question that names the file and lists what it allows.  Untrusted, the CLI runs with
``--setting-sources user`` (project and local settings not loaded: no allow rules, hooks,
permission mode or environment from the folder) and, when the folder has an untrusted
``.mcp.json``, ``--strict-mcp-config`` (only milk's own MCP servers)
(docs/adr/0034-project-files-never-widen-permissions.md).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from milk_tui.agents.claude_settings import LOCAL_SETTINGS, add_allow_rules
from milk_tui.config.project_trust import TrustStore

SHARED_SETTINGS = Path(".claude") / "settings.json"
MCP_FILE = Path(".mcp.json")
PROJECT_FILES = (str(SHARED_SETTINGS), str(LOCAL_SETTINGS), str(MCP_FILE))

_EXPLAINED = {"permissions", "hooks", "env", "enableAllProjectMcpServers", "enabledMcpjsonServers"}


@dataclass(frozen=True, slots=True)
class ProjectFile:
    name: str
    """Relative to the folder: ``.claude/settings.json``."""
    path: str
    digest: str
    rules: tuple[str, ...]
    """Its ``permissions.allow`` rules (settings files)."""
    allows: tuple[str, ...]
    """What it would allow or change, one item a line, milk's own rules left out."""


@dataclass(frozen=True, slots=True)
class ProjectTrustState:
    rules: tuple[str, ...]
    """The allow rules to pass in ``--allowedTools``: milk's own, and a trusted file's."""
    ask: tuple[ProjectFile, ...]
    """Files that widen something and were never asked about in this content."""
    ignored: tuple[ProjectFile, ...]
    """Files that widen something and are not trusted (asked or not): left out."""

    @property
    def load_project_settings(self) -> bool:
        return not any(f.name != str(MCP_FILE) for f in self.ignored)

    @property
    def strict_mcp(self) -> bool:
        return any(f.name == str(MCP_FILE) for f in self.ignored)


def _settings_items(data: dict[str, Any], milk: frozenset[str]) -> tuple[list[str], list[str]]:
    perms = data.get("permissions")
    perms = perms if isinstance(perms, dict) else {}
    allow = perms.get("allow")
    rules = [r for r in allow if isinstance(r, str) and r] if isinstance(allow, list) else []
    items = [f"allow {r}" for r in rules if r not in milk]
    for key, value in perms.items():
        if key not in ("allow", "deny", "ask"):
            items.append(f"permissions.{key}: {json.dumps(value)[:200]}")
    hooks = data.get("hooks")
    if isinstance(hooks, dict) and hooks:
        items.append(f"hooks that run commands: {', '.join(map(str, hooks))}")
    env = data.get("env")
    if isinstance(env, dict) and env:
        items.append(f"environment: {', '.join(map(str, env))}")
    if data.get("enableAllProjectMcpServers") is True:
        items.append("every MCP server of .mcp.json")
    servers = data.get("enabledMcpjsonServers")
    if isinstance(servers, list) and servers:
        items.append(f"MCP servers of .mcp.json: {', '.join(map(str, servers))}")
    other = [k for k in data if k not in _EXPLAINED]
    if other:
        items.append(f"other settings: {', '.join(other)}")
    return rules, items


def _mcp_items(data: dict[str, Any]) -> list[str]:
    servers = data.get("mcpServers")
    if not isinstance(servers, dict):
        return [f"other settings: {', '.join(data)}"] if data else []
    items = []
    for name, spec in servers.items():
        s = spec if isinstance(spec, dict) else {}
        what = s.get("url") or " ".join(map(str, [s.get("command") or "", *(s.get("args") or [])]))
        items.append(f"MCP server {name}: {str(what).strip()[:200]}")
    return items


def _read_regular(path: Path) -> bytes:
    """The file's bytes; a FIFO or device (which a plain read would block on, or the CLI
    read differently) is an error, never waited for."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        return f.read()


def read_project_file(cwd: str, name: str, milk: frozenset[str]) -> ProjectFile | None:
    """The file as the CLI would see it; None when there is none."""
    path = Path(cwd) / name
    try:
        raw = _read_regular(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        return ProjectFile(name, str(path), "", (), (f"unreadable ({e.strerror or e})",))
    digest = hashlib.sha256(raw).hexdigest()
    try:
        data = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except (ValueError, UnicodeDecodeError) as e:
        return ProjectFile(name, str(path), digest, (), (f"not valid JSON ({e})",))
    if not isinstance(data, dict):
        return ProjectFile(name, str(path), digest, (), ("not a JSON object",))
    if name == str(MCP_FILE):
        return ProjectFile(name, str(path), digest, (), tuple(_mcp_items(data)))
    rules, items = _settings_items(data, milk if name == str(LOCAL_SETTINGS) else frozenset())
    return ProjectFile(name, str(path), digest, tuple(rules), tuple(items))


def project_trust(cwd: str, store: TrustStore) -> ProjectTrustState:
    """What of the folder's own files milk may pass on now, and what to ask about."""
    milk = store.milk_rules(cwd)
    rules: list[str] = []
    ask: list[ProjectFile] = []
    ignored: list[ProjectFile] = []
    for name in PROJECT_FILES:
        f = read_project_file(cwd, name, milk)
        if f is None:
            continue
        trusted = store.decision(cwd, name, f.digest) if f.digest else False
        if trusted:
            rules.extend(f.rules)
            continue
        rules.extend(r for r in f.rules if r in milk and name == str(LOCAL_SETTINGS))
        if f.allows:
            ignored.append(f)
            if trusted is None and f.digest:
                ask.append(f)
    return ProjectTrustState(tuple(dict.fromkeys(rules)), tuple(ask), tuple(ignored))


def trust_files(cwd: str, store: TrustStore, files: tuple[ProjectFile, ...], yes: bool) -> None:
    """Record the user's answer for each file's current content."""
    for f in files:
        if f.digest:
            store.decide(cwd, f.name, f.digest, yes)


def store_milk_rules(cwd: str, store: TrustStore, rules: tuple[str, ...]) -> list[str]:
    """Add ``rules`` to the folder's ``.claude/settings.local.json`` as milk's own (recorded
    first: a failed write leaves a record of a rule the file lacks, which passes nothing);
    a file the user trusted stays trusted after milk's own change.  Raises
    ``ClaudeSettingsError`` like ``add_allow_rules``."""
    name = str(LOCAL_SETTINGS)
    before = read_project_file(cwd, name, store.milk_rules(cwd))
    trusted = bool(before and before.digest and store.decision(cwd, name, before.digest))
    store.add_milk_rules(cwd, rules)
    stored = add_allow_rules(cwd, rules)
    after = read_project_file(cwd, name, store.milk_rules(cwd))
    if trusted and after and after.digest:
        store.decide(cwd, name, after.digest, True)
    return stored
