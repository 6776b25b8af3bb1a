"""Which of a folder's own settings files the user trusted, and the rules milk wrote there.

A folder can ship files that would widen what the escalation agent may do (the Claude
CLI's ``.claude/settings.json``, ``.claude/settings.local.json``, ``.mcp.json``).  milk
passes their allow-lists on only when milk wrote the rules itself (recorded here when
"Always" stores one) or the user trusted that file once; the trust is kept with the file's
content hash, so a changed file is asked about again (docs/adr/0034-project-files-never-widen-permissions.md).

``<dir>/<sha256 of the resolved folder>.trust.json`` holds ``{"cwd": …, "milk_rules": […],
"files": {name: {"sha256": …, "trusted": bool}}}`` next to the folder's grants file; a
declined file is kept too (it is not asked again until it changes).  Written atomically
with mode 0600; an unreadable file counts as nothing recorded.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from milk_tui.config.paths import write_private


def trust_key(cwd: str) -> str:
    """The folder's key: the same as its grants file's (``storage.permission_grants.
    folder_key``; a test keeps them equal), so both files sit side by side."""
    return hashlib.sha256(str(Path(cwd).resolve()).encode()).hexdigest()


class TrustStore:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path_for(self, cwd: str) -> Path:
        return self.directory / f"{trust_key(cwd)}.trust.json"

    def _load(self, cwd: str) -> dict[str, Any]:
        try:
            data = json.loads(self.path_for(cwd).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _save(self, cwd: str, data: dict[str, Any]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        data["cwd"] = str(Path(cwd).resolve())
        write_private(self.path_for(cwd), json.dumps(data, indent=2) + "\n", 0o600)

    def milk_rules(self, cwd: str) -> frozenset[str]:
        """The allow rules milk itself stored in the folder's settings file."""
        rules = self._load(cwd).get("milk_rules")
        return (
            frozenset(r for r in rules if isinstance(r, str))
            if isinstance(rules, list)
            else frozenset()
        )

    def add_milk_rules(self, cwd: str, rules: Iterable[str]) -> None:
        data = self._load(cwd)
        known = self.milk_rules(cwd)
        new = [r for r in dict.fromkeys(rules) if r and r not in known]
        if new:
            data["milk_rules"] = sorted(known | set(new))
            self._save(cwd, data)

    def decision(self, cwd: str, name: str, digest: str) -> bool | None:
        """True (trusted) or False (declined) for this content of the file; None: never asked."""
        files = self._load(cwd).get("files")
        entry = files.get(name) if isinstance(files, dict) else None
        if not isinstance(entry, dict) or entry.get("sha256") != digest:
            return None
        return entry.get("trusted") is True

    def decide(self, cwd: str, name: str, digest: str, trusted: bool) -> None:
        data = self._load(cwd)
        files = data.get("files")
        if not isinstance(files, dict):
            files = data["files"] = {}
        files[name] = {"sha256": digest, "trusted": trusted}
        self._save(cwd, data)
