"""Tools the user allowed for good, per working folder: one JSON file per folder.

``<dir>/<sha256 of the resolved folder>.json`` holds ``{"cwd": …, "allowed_tools": […]}``
(the key matches a Go milk grant file's).  Files are written atomically (a temp file
renamed over the old one) with mode 0600.  A file that cannot be read counts as no grants
and is reported once as a warning; the next grant rewrites it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path


def folder_key(cwd: str) -> str:
    return hashlib.sha256(str(Path(cwd).resolve()).encode()).hexdigest()


class GrantStore:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.warnings: list[str] = []
        """Unreadable grant files met so far (each reported once)."""
        self._warned: set[Path] = set()
        self._files: dict[str, Path] = {}
        """Folder → its grant file: the folder is resolved once, not on every tool call."""

    def path_for(self, cwd: str) -> Path:
        path = self._files.get(cwd)
        if path is None:
            path = self._files[cwd] = self.directory / f"{folder_key(cwd)}.json"
        return path

    def allowed(self, cwd: str) -> frozenset[str]:
        path = self.path_for(cwd)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            tools = data["allowed_tools"]
            if not isinstance(tools, list):
                raise ValueError("allowed_tools is not a list")
            return frozenset(str(t) for t in tools)
        except FileNotFoundError:
            return frozenset()
        except (OSError, ValueError, KeyError, TypeError) as e:
            if path not in self._warned:
                self._warned.add(path)
                self.warnings.append(f"permission grants {path} ignored (unreadable: {e})")
            return frozenset()

    def grant(self, cwd: str, tools: list[str]) -> frozenset[str]:
        return self._write(cwd, self.allowed(cwd) | set(tools))

    def revoke(self, cwd: str, tools: list[str]) -> frozenset[str]:
        return self._write(cwd, self.allowed(cwd) - set(tools))

    def take_warnings(self) -> list[str]:
        out, self.warnings = self.warnings, []
        return out

    def _write(self, cwd: str, tools: frozenset[str] | set[str]) -> frozenset[str]:
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        body = {"cwd": str(Path(cwd).resolve()), "allowed_tools": sorted(tools)}
        path = self.path_for(cwd)
        fd, tmp = tempfile.mkstemp(prefix=".grants-", dir=self.directory)  # mode 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(body, f, indent=2)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        self._warned.discard(path)
        return frozenset(tools)
