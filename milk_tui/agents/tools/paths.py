"""Where a tool's path argument points: resolved against the working folder, symlinks followed.

Model output is untrusted, so every path is resolved the same way (``~`` expanded, relative
to the cwd, symlinks followed) before a tool touches it.  Whether a path outside the cwd
may be used is a policy: with ``confine`` on, the tool refuses it; with it off, the
permission check in the tool loop decides first (``call_paths`` on the tool's
``ToolSpec.path_args``, which resolves exactly as the tools do).

What the check decided is pinned for the call (``pin``): when the tool acts it resolves
each path again, and one that now points elsewhere (a file swapped for a symlink while the
question was open) is refused (docs/adr/0033-path-first-permissions.md).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

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
    return within(str(cwd), str(target))


def within(root: str, path: str) -> bool:
    """``path`` is ``root`` or under it; both absolute and resolved (a string test: this
    runs for every path of every tool call)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


@dataclass(frozen=True, slots=True)
class CallPath:
    """One path argument of a call: as given, resolved as the tool will resolve it (the
    given text when it cannot be resolved: a NUL byte, a symlink loop), and whether that
    is inside the working folder."""

    raw: str
    resolved: str
    inside: bool


ANY_ARG = "*"
"""As a path argument name: every argument (an MCP schema open to undeclared ones)."""


def call_paths(root: Path, args: Mapping[str, Any], names: tuple[str, ...]) -> tuple[CallPath, ...]:
    """Every value of the path arguments ``names`` (a string, or every string inside a list
    or object: MCP tools nest paths) against the working folder ``root`` (already
    resolved); a ``file:`` URI is taken as the path it names."""
    out: list[CallPath] = []
    for name in names:
        for raw in _strings(dict(args) if name == ANY_ARG else args.get(name), 0):
            try:
                target = resolve(root, _uri_path(raw))
            except (ToolFailure, OSError, RuntimeError, ValueError):
                out.append(CallPath(raw, raw, False))  # unresolvable: treated as outside
                continue
            out.append(CallPath(raw, str(target), is_inside(root, target)))
    return tuple(out)


def _strings(value: Any, depth: int) -> Iterator[str]:
    if isinstance(value, str):
        if value:
            yield value
    elif depth < 8 and isinstance(value, list | dict):
        for v in value.values() if isinstance(value, dict) else value:
            yield from _strings(v, depth + 1)


def _uri_path(raw: str) -> str:
    """The path of a ``file:`` URI (RFC 8089), else ``raw``; a URI naming another host
    cannot be resolved here (ValueError)."""
    if raw[:5].lower() != "file:":
        return raw
    uri = urlsplit(raw)
    if uri.netloc not in ("", "localhost"):
        raise ValueError(f"file URI on host {uri.netloc!r}")
    return unquote(uri.path) or "/"


def outside_paths(
    cwd: str | Path, args: Mapping[str, Any], names: tuple[str, ...]
) -> tuple[str, ...]:
    """The values of the path arguments ``names`` that resolve outside ``cwd``."""
    return tuple(p.raw for p in call_paths(Path(cwd).resolve(), args, names) if not p.inside)


_PINNED: ContextVar[Mapping[str, str] | None] = ContextVar("milk_pinned_paths", default=None)
"""For the running tool call: each path argument as given → the resolved path the
permission check decided on (set by the check in the call's own context)."""


def pin(paths: Mapping[str, str]) -> None:
    """Pin what the permission check decided for the tool call running in this context."""
    _PINNED.set(dict(paths))


def check_pinned(cwd: Path, raw: str, target: Path) -> None:
    """Refuse ``target`` when it is not where the decision on ``raw`` said it would be (a
    path not decided on must be inside the folder)."""
    pinned = _PINNED.get()
    if pinned is None:
        return
    decided = pinned.get(raw)
    if decided is None:
        if not is_inside(cwd, target):
            raise ToolFailure(f"path {raw!r} resolves outside the working directory; not touched")
        return
    if str(target) != decided:
        raise ToolFailure(
            f"path {raw!r} changed after it was allowed: it was {decided}, it now resolves to "
            f"{target}; not touched"
        )


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
        check_pinned(self.cwd, raw, target)
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
        # The decision followed the last component (what a symlink points to), so that
        # is what must still match; the act itself is on the entry.
        check_pinned(self.cwd, raw, (parent / p.name).resolve())
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
