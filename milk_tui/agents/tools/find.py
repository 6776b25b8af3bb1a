"""find_files: files whose name matches a glob, under a folder, skipping ``SKIP_DIRS``."""

from __future__ import annotations

import fnmatch

from milk_tui.agents.tools.paths import ToolFailure, Workspace

FIND_MAX_RESULTS = 500


def find_files(ws: Workspace, path: str, pattern: str) -> str:
    """A pattern without ``/`` matches file names (``*.py``); one with ``/`` matches the path
    relative to ``path`` (``src/*/test_*.py``)."""
    root = ws.path(path or ".")
    if not root.exists():
        raise ToolFailure(f"{path}: no such file or directory")
    if not pattern:
        raise ToolFailure("pattern must not be empty (e.g. *.py)")
    by_path = "/" in pattern
    found: list[str] = []
    for file in ws.walk_files(root):
        key = str(file.relative_to(root)) if by_path and file != root else file.name
        if fnmatch.fnmatchcase(key, pattern):
            if len(found) == FIND_MAX_RESULTS:
                found.append(f"[truncated: more than {FIND_MAX_RESULTS} files]")
                break
            found.append(ws.show(file))
    return "\n".join(found) if found else "(no files found)"
