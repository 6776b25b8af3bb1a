"""A scenario's folder: its setup files written, and what a turn changed in it."""

from __future__ import annotations

import difflib
import hashlib
import os
from pathlib import Path

MAX_FILE = 1_000_000
"""Larger files are compared by size and time only, and never put in a diff."""
DIFF_MAX = 20_000
SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv"}

Snapshot = dict[str, tuple[str, bytes | None]]
"""relative path → (content hash, the bytes when small enough to diff)."""


def write_setup(folder: Path, files: tuple[tuple[str, str], ...]) -> None:
    for rel, content in files:
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")


def snapshot(folder: Path) -> Snapshot:
    out: Snapshot = {}
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for name in files:
            path = Path(root) / name
            if path.is_symlink() or not path.is_file():
                continue
            rel = path.relative_to(folder).as_posix()
            st = path.stat()
            if st.st_size > MAX_FILE:
                out[rel] = (f"{st.st_size}:{st.st_mtime_ns}", None)
                continue
            data = path.read_bytes()
            out[rel] = (hashlib.sha256(data).hexdigest(), data)
    return out


def changed(before: Snapshot, after: Snapshot) -> list[str]:
    """Paths created, modified or deleted, sorted."""
    keys = set(before) | set(after)
    return sorted(k for k in keys if before.get(k, ("", None))[0] != after.get(k, ("", None))[0])


def diff(before: Snapshot, after: Snapshot, paths: list[str]) -> str:
    parts: list[str] = []
    for p in paths:
        old, new = before.get(p, ("", b""))[1], after.get(p, ("", b""))[1]
        if old is None or new is None:
            parts.append(f"{p}: changed (too large to show)\n")
            continue
        try:
            a, b = old.decode().splitlines(True), new.decode().splitlines(True)
        except UnicodeDecodeError:
            parts.append(f"{p}: changed (binary)\n")
            continue
        src = "/dev/null" if p not in before else f"a/{p}"
        dst = "/dev/null" if p not in after else f"b/{p}"
        parts.extend(difflib.unified_diff(a, b, src, dst))
    text = "".join(parts)
    return text if len(text) <= DIFF_MAX else text[:DIFF_MAX] + "\n… (cut)\n"
