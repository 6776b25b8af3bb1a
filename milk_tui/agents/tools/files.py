"""Read-only file tools: read_file, list_dir, grep.

Paths resolve through ``Workspace`` (``paths.py``).  Nothing is read whole: read_file
streams lines and stops at the output cap, grep skips files over 4 MiB, so a 1 GB file
costs no more than a small one.  Results are capped so one call cannot flood a small
model's context.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import BinaryIO

from milk_tui.agents.tools.nofollow import open_file
from milk_tui.agents.tools.paths import ToolFailure, Workspace

READ_DEFAULT_LINES = 500
"""read_file without a limit shows at most 500 lines: a whole module, not a whole log."""
OUTPUT_CAP_BYTES = 32 * 1024
"""Keeps one tool result well inside a small local model's context window."""
GREP_MAX_MATCHES = 200
GREP_MAX_FILE_BYTES = 4 * 1024 * 1024
"""Skip huge files: they are almost never what a grep for code wants, and cost seconds."""
COUNT_SCAN_BYTES = 8 * 1024 * 1024
"""How far read_file reads past what it shows to count a file's lines; beyond this the
total is given as "more than"."""
LIST_MAX_ENTRIES = 500
LINE_CAP = 500
READ_LINE_CAP = 4096
"""read_file shows at most this many bytes of one line (minified files, logs)."""

__all__ = ["ToolFailure", "cap", "grep", "list_dir", "read_file"]


def cap(text: str, limit: int = OUTPUT_CAP_BYTES) -> str:
    data = text.encode()
    if len(data) <= limit:
        return text
    cut = data[:limit].decode(errors="ignore")
    return cut + f"\n[truncated: output exceeded {limit} bytes]"


def read_file(ws: Workspace, path: str, offset: int = 0, limit: int | None = None) -> str:
    target = ws.path(path)
    if not target.exists():
        raise ToolFailure(f"{path}: no such file")
    if target.is_dir():
        raise ToolFailure(f"{path}: is a directory (use list_dir)")
    if not target.is_file():
        raise ToolFailure(f"{path}: not a regular file")
    start = max(offset, 0)
    count = limit if limit and limit > 0 else READ_DEFAULT_LINES
    with os.fdopen(open_file(target, os.O_RDONLY), "rb") as f:
        if b"\x00" in f.read(8192):
            size = os.fstat(f.fileno()).st_size
            raise ToolFailure(f"{path}: binary file ({size} bytes); read_file shows text only")
        f.seek(0)
        out, total, complete = _read_lines(f, start, count)
    end = start + len(out)
    if not out:
        return f"(no lines: file has {total} lines)"
    more = end < total or not complete
    if more and (not limit or len(out) < count):  # no limit given, or the byte cap hit
        of = str(total) if complete else f"more than {max(total, end)}"
        out.append(
            f"[truncated: showed lines {start + 1}-{end} of {of}; use offset+limit to read more]"
        )
    return cap("\n".join(out))


def _read_lines(f: BinaryIO, start: int, count: int) -> tuple[list[str], int, bool]:
    """Lines ``start``..``start+count`` numbered, the lines counted, whether that count is
    the whole file.  At most about COUNT_SCAN_BYTES are read past what is shown, so time and
    memory stay bounded whatever the file's size."""
    out: list[str] = []
    shown_bytes = 0
    n = 0
    while True:
        line, whole = _next_line(f)
        if line is None:
            return out, n, True
        n += 1
        if n <= start:
            if not whole:
                return out, n, False
            continue
        if len(out) >= count:
            break
        text = f"{n}\t" + line.decode(errors="replace").rstrip("\r\n")
        shown_bytes += len(text.encode()) + 1
        if out and shown_bytes > OUTPUT_CAP_BYTES - 256:  # room left for the note
            break
        out.append(text)
        if not whole:
            return out, n, False
    scanned, last = 0, b"\n"
    while scanned < COUNT_SCAN_BYTES:
        chunk = f.read(1 << 20)
        if not chunk:
            return out, n + (last != b"\n"), True  # a last line without a newline counts
        scanned += len(chunk)
        n += chunk.count(b"\n")
        last = chunk[-1:]
    return out, n, False


def _next_line(f: BinaryIO) -> tuple[bytes | None, bool]:
    """One line cut at READ_LINE_CAP bytes, and False when its end was not found within
    COUNT_SCAN_BYTES (the caller then stops reading)."""
    line = f.readline(READ_LINE_CAP)
    if not line:
        return None, True
    if line.endswith(b"\n") or len(line) < READ_LINE_CAP:
        return line, True
    cut = 0
    while cut < COUNT_SCAN_BYTES:
        rest = f.readline(1 << 16)
        cut += len(rest)
        if not rest or rest.endswith(b"\n"):
            return line + f" […line cut: {cut} more bytes]".encode(), True
    return line + f" […line cut: more than {cut} bytes]".encode(), False


def list_dir(ws: Workspace, path: str = ".") -> str:
    target = ws.path(path or ".")
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


def grep(ws: Workspace, pattern: str, path: str = ".") -> str:
    try:
        rx = re.compile(pattern)
    except re.error as e:
        raise ToolFailure(f"invalid regular expression: {e}") from e
    target = ws.path(path or ".")
    if not target.exists():
        raise ToolFailure(f"{path}: no such file or directory")
    matches: list[str] = []
    note = ""
    for file in ws.walk_files(target):
        if _grep_file(ws, file, rx, matches):
            note = f"\n[truncated: more than {GREP_MAX_MATCHES} matches]"
            break
    if not matches:
        return "(no matches)"
    return cap("\n".join(matches)) + note


def _grep_file(ws: Workspace, file: Path, rx: re.Pattern[str], matches: list[str]) -> bool:
    """Append matches; True when the match cap was hit."""
    try:
        if file.stat().st_size > GREP_MAX_FILE_BYTES:
            return False
        data = file.read_bytes()
    except OSError:
        return False
    if b"\x00" in data[:8192]:
        return False
    rel = ws.show(file)
    for n, line in enumerate(data.decode(errors="replace").splitlines(), start=1):
        if rx.search(line):
            matches.append(f"{rel}:{n}:{line[:LINE_CAP]}")
            if len(matches) >= GREP_MAX_MATCHES:
                return True
    return False
