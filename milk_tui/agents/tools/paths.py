"""Where a tool's path argument points: resolved against the working folder, symlinks followed.

Model output is untrusted, so every path is resolved the same way (``~`` expanded, relative
to the cwd, symlinks followed) before a tool touches it.  Whether a path outside the cwd
may be used is a policy: with ``confine`` on, the tool refuses it; with it off, the
permission check in the tool loop asks the user first (it uses ``outside_paths`` on the
tool's ``ToolSpec.path_args``, which resolves exactly as the tools do).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SKIP_DIRS = frozenset({".git", ".claude", "__pycache__", "node_modules", ".venv"})
"""Folders a search never enters: version control, caches and installed dependencies."""


class ToolFailure(Exception):
    """A user-facing tool error (bad path, not a file, …)."""


def resolve(cwd: Path, path: str) -> Path:
    """``path`` as an absolute path: ``~`` expanded, relative to ``cwd``, symlinks followed."""
    if "\x00" in path:
        raise ToolFailure("path contains a NUL byte")
    raw = Path(os.path.expanduser(path)) if path.startswith("~") else Path(path)
    return (cwd / raw).resolve()


def is_inside(cwd: Path, target: Path) -> bool:
    return target == cwd or target.is_relative_to(cwd)


def outside_paths(
    cwd: str | Path, args: Mapping[str, Any], names: tuple[str, ...]
) -> tuple[str, ...]:
    """The values of the path arguments ``names`` that resolve outside ``cwd``."""
    root = Path(cwd).resolve()
    out = []
    for name in names:
        value = args.get(name)
        if not isinstance(value, str) or not value:
            continue
        try:
            if not is_inside(root, resolve(root, value)):
                out.append(value)
        except (ToolFailure, OSError, RuntimeError):
            out.append(value)  # unresolvable (NUL, symlink loop): treat as outside
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Workspace:
    """The working folder of a tool box and whether its tools may leave it."""

    cwd: Path
    confine: bool = True

    def path(self, raw: str) -> Path:
        """The resolved target of ``raw``; refused outside the cwd while confined."""
        target = resolve(self.cwd, raw)
        if self.confine and not is_inside(self.cwd, target):
            raise ToolFailure(f"path {raw!r} is outside the working directory")
        return target

    def entry(self, raw: str) -> Path:
        """Like ``path`` but the last component is not followed: deleting or moving a
        symlink acts on the link, never on what it points to."""
        p = Path(os.path.expanduser(raw)) if raw.startswith("~") else Path(raw)
        if p.name in ("", ".", ".."):
            return self.path(raw)
        parent = resolve(self.cwd, str(p.parent))
        if self.confine and not is_inside(self.cwd, parent):
            raise ToolFailure(f"path {raw!r} is outside the working directory")
        return parent / p.name

    def show(self, p: Path) -> str:
        """``p`` relative to the cwd when inside it, else absolute."""
        return str(p.relative_to(self.cwd)) if is_inside(self.cwd, p) and p != self.cwd else str(p)

    def walk_files(self, root: Path) -> Iterator[Path]:
        """Regular files under ``root`` (or ``root`` itself), sorted, skipping ``SKIP_DIRS``
        and symlinks that lead out of both the cwd and ``root``."""
        if root.is_file():
            yield root
            return
        for base, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            for name in sorted(files):
                p = Path(base) / name
                real = p.resolve()
                if (is_inside(self.cwd, real) or is_inside(root, real)) and real.is_file():
                    yield p
