"""What a file write or edit would change, as a unified diff for the permission question.

Pure: the caller reads the current content (``None`` when the file does not exist).  A new
file shows its first lines and how many more there are.
"""

from __future__ import annotations

import difflib
from typing import Any

CONTEXT_LINES = 3
NEW_FILE_LINES = 20
"""Lines of a new file shown; the rest is counted as ``[+N lines]``."""

WRITE_TOOLS = {"write_file": "path", "Write": "file_path"}
EDIT_TOOLS = {"edit_file": "path", "Edit": "file_path"}


def edited_path(tool_name: str, args: dict[str, Any]) -> str | None:
    """The file a write/edit call changes, or None for other tools."""
    key = WRITE_TOOLS.get(tool_name) or EDIT_TOOLS.get(tool_name)
    value = args.get(key) if key else None
    return value if isinstance(value, str) and value else None


def new_content(tool_name: str, args: dict[str, Any], current: str | None) -> str | None:
    """The file's content after the call; None when the call would fail or is not an edit."""
    if tool_name in WRITE_TOOLS:
        content = args.get("content")
        return content if isinstance(content, str) else None
    if tool_name in EDIT_TOOLS:
        old, new = args.get("old_string"), args.get("new_string")
        if current is None or not isinstance(old, str) or not isinstance(new, str) or not old:
            return None
        if args.get("replace_all"):
            return current.replace(old, new)
        return current.replace(old, new, 1) if current.count(old) == 1 else None
    return None


def edit_preview(tool_name: str, args: dict[str, Any], current: str | None) -> str:
    """A unified diff (3 lines of context) of the call's change; "" when there is none."""
    path = edited_path(tool_name, args)
    after = new_content(tool_name, args, current)
    if path is None or after is None:
        return ""
    if current is None:
        lines = after.splitlines()
        shown = [f"+{line}" for line in lines[:NEW_FILE_LINES]]
        head = ["--- /dev/null", f"+++ {path} (new file)"]
        more = len(lines) - NEW_FILE_LINES
        return "\n".join(head + shown + ([f"[+{more} lines]"] if more > 0 else []))
    diff = difflib.unified_diff(
        current.splitlines(),
        after.splitlines(),
        fromfile=path,
        tofile=path,
        n=CONTEXT_LINES,
        lineterm="",
    )
    return "\n".join(diff)


def call_diff(tool_name: str, args: dict[str, Any]) -> str:
    """The change a write/edit call describes, from its arguments alone (no file read): an
    edit's ``old_string`` → ``new_string``, a write's new content.  "" for other tools."""
    if tool_name in EDIT_TOOLS:
        old = args.get("old_string")
        return (
            edit_preview(tool_name, {**args, "replace_all": False}, old)
            if isinstance(old, str)
            else ""
        )
    if tool_name in WRITE_TOOLS:
        return edit_preview(tool_name, args, None)
    return ""
