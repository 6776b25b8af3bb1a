"""Read-only file tools for the primary agent, confined to the session's cwd.

Model output is untrusted: every path is resolved (symlinks followed) and must
stay inside the cwd, so neither ``..``, an absolute path nor a symlink can reach outside.
Results are capped so one call cannot flood a small model's context.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

READ_DEFAULT_LINES = 500
"""read_file without a limit shows at most 500 lines: a whole module, not a whole log."""
OUTPUT_CAP_BYTES = 32 * 1024
"""Keeps one tool result well inside a small local model's context window."""
GREP_MAX_MATCHES = 200
GREP_MAX_FILE_BYTES = 4 * 1024 * 1024
"""Skip huge files: they are almost never what a grep for code wants, and cost seconds."""
LIST_MAX_ENTRIES = 500
SKIP_DIRS = {".git", ".claude", "__pycache__", "node_modules", ".venv"}
LINE_CAP = 500


class ToolFailure(Exception):
    """A user-facing tool error (bad path, not a file, …)."""


def confine(cwd: Path, path: str) -> Path:
    """Resolve ``path`` against ``cwd``; raise unless the result stays inside ``cwd``."""
    if "\x00" in path:
        raise ToolFailure("path contains a NUL byte")
    raw = Path(os.path.expanduser(path)) if path.startswith("~") else Path(path)
    target = (cwd / raw).resolve()
    if target != cwd and not target.is_relative_to(cwd):
        raise ToolFailure(f"path {path!r} is outside the working directory")
    return target


def cap(text: str, limit: int = OUTPUT_CAP_BYTES) -> str:
    data = text.encode()
    if len(data) <= limit:
        return text
    cut = data[:limit].decode(errors="ignore")
    return cut + f"\n[truncated: output exceeded {limit} bytes]"


def read_file(cwd: Path, path: str, offset: int = 0, limit: int | None = None) -> str:
    target = confine(cwd, path)
    if not target.exists():
        raise ToolFailure(f"{path}: no such file")
    if target.is_dir():
        raise ToolFailure(f"{path}: is a directory (use list_dir)")
    with open(target, "rb") as f:
        head = f.read(8192)
        if b"\x00" in head:
            raise ToolFailure(f"{path}: binary file")
        data = head + f.read()
    lines = data.decode(errors="replace").splitlines()
    total = len(lines)
    start = max(offset, 0)
    count = limit if limit and limit > 0 else READ_DEFAULT_LINES
    chosen = lines[start : start + count]
    out = [f"{start + i + 1}\t{line}" for i, line in enumerate(chosen)]
    end = start + len(chosen)
    if not limit and end < total:
        out.append(
            f"[truncated: showed lines {start + 1}-{end} of {total}; use offset+limit to read more]"
        )
    if not out:
        return f"(no lines: file has {total} lines)"
    return cap("\n".join(out))


def list_dir(cwd: Path, path: str = ".") -> str:
    target = confine(cwd, path or ".")
    if not target.is_dir():
        raise ToolFailure(f"{path}: not a directory")
    rows = []
    for i, entry in enumerate(sorted(os.scandir(target), key=lambda e: e.name)):
        if i >= LIST_MAX_ENTRIES:
            rows.append(f"[truncated: more than {LIST_MAX_ENTRIES} entries]")
            break
        try:
            is_dir = entry.is_dir()
            size = 0 if is_dir else entry.stat().st_size
        except OSError:
            is_dir, size = False, 0
        rows.append(f"{'dir' if is_dir else 'file':<6}  {size:>8}  {entry.name}")
    return cap("\n".join(rows)) if rows else "(empty directory)"


def grep(cwd: Path, pattern: str, path: str = ".") -> str:
    try:
        rx = re.compile(pattern)
    except re.error as e:
        raise ToolFailure(f"invalid regular expression: {e}") from e
    target = confine(cwd, path or ".")
    if not target.exists():
        raise ToolFailure(f"{path}: no such file or directory")
    matches: list[str] = []
    note = ""
    for file in _walk(cwd, target):
        if _grep_file(cwd, file, rx, matches):
            note = f"\n[truncated: more than {GREP_MAX_MATCHES} matches]"
            break
    if not matches:
        return "(no matches)"
    return cap("\n".join(matches)) + note


def _walk(cwd: Path, target: Path) -> Iterator[Path]:
    if target.is_file():
        yield target
        return
    for root, dirs, files in os.walk(target):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            p = Path(root) / name
            real = p.resolve()
            if real.is_relative_to(cwd) and real.is_file():  # symlinks out are skipped
                yield p


def _grep_file(cwd: Path, file: Path, rx: re.Pattern[str], matches: list[str]) -> bool:
    """Append matches; True when the match cap was hit."""
    try:
        if file.stat().st_size > GREP_MAX_FILE_BYTES:
            return False
        data = file.read_bytes()
    except OSError:
        return False
    if b"\x00" in data[:8192]:
        return False
    rel = file.relative_to(cwd) if file.is_relative_to(cwd) else file
    for n, line in enumerate(data.decode(errors="replace").splitlines(), start=1):
        if rx.search(line):
            matches.append(f"{rel}:{n}:{line[:LINE_CAP]}")
            if len(matches) >= GREP_MAX_MATCHES:
                return True
    return False
