"""The permission rules for every tool call of every agent, in one place, path first.

Every path of a call has been resolved (``agents/tools/paths.py``) before it gets here.  A
call with a path outside the working folder is allowed only by a grant of the tool on
exactly that resolved path (``TOOL:/abs/path``); no grant of the tool, no
``--allow-tools`` and no skip-permissions switch covers it: it is asked about, or denied
with a reason naming the path when no one can answer.  Otherwise: a read runs freely; the
session's skip-permissions switch (or ``--allow-tools``) allows; a stored grant of the tool
for this folder (for ``bash``, of the command's prefix: ``agents/grant_keys.py``; for the
Claude CLI, its own stored allow rules) allows; with no one to ask (headless ``-p``) it is
denied with the reason; else the user is asked (docs/adr/0011-permissions-in-one-place.md,
docs/adr/0033-path-first-permissions.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from milk_tui.agents.base import PermissionQuestion
from milk_tui.agents.grant_keys import SHELL_TOOL, command_granted, exact_grant, path_key
from milk_tui.agents.tools.paths import ToolFailure, resolve, within
from milk_tui.model.edit_preview import edit_preview, edited_path
from milk_tui.model.events import PermissionHow

PREVIEW_MAX_BYTES = 1_000_000
"""A bigger (or binary) file gets no diff in the question, only the arguments."""


@dataclass(frozen=True, slots=True)
class Decision:
    allowed: bool
    how: PermissionHow
    reason: str = ""


def runs_freely(q: PermissionQuestion) -> bool:
    return q.effect == "read" and not q.outside_paths


def decide(
    q: PermissionQuestion, *, root: Path, skip: bool, granted: frozenset[str], can_ask: bool
) -> Decision | None:
    """The decision without asking anyone, or None when the user must be asked; ``root``
    is the working folder, resolved."""
    if q.outside_paths:
        if paths_granted(q, root, skip=skip, granted=granted):
            return Decision(True, "grant")
        if not can_ask:
            return Decision(False, "headless", headless_reason(q, root))
        return None
    if skip:
        return Decision(True, "skip")
    if is_granted(q, granted, root):
        return Decision(True, "grant")
    if not can_ask:
        return Decision(False, "headless", headless_reason(q, root))
    return None


def is_granted(q: PermissionQuestion, granted: Iterable[str], root: Path) -> bool:
    """A milk grant of the tool (for ``bash``, one covering the command, a prefix only
    while no argument leads outside ``root``), or every rule the backend would store for
    "Always" (``granted`` then holds the backend's stored rules as well).  Says nothing
    about the call's path arguments outside the folder (``paths_granted``)."""
    command = q.tool_input.get("command")
    if q.tool_name == SHELL_TOOL and isinstance(command, str):
        return command_granted(command, granted, root)
    return q.tool_name in granted or bool(q.always_rules and set(q.always_rules) <= set(granted))


def paths_granted(
    q: PermissionQuestion, root: Path, *, skip: bool, granted: frozenset[str]
) -> bool:
    """Every resolved path of the call is granted for the tool by name; a path inside the
    folder may instead be covered as the call would be without outside paths."""
    command = q.tool_input.get("command")
    if q.tool_name == SHELL_TOOL and isinstance(command, str):
        return exact_grant(command) in granted  # see agents/shell_paths.py
    inside_ok = q.effect == "read" or skip or is_granted(q, granted, root)
    top = str(root)
    for p in q.resolved_paths:
        if path_key(q.tool_name, p) in granted:
            continue
        if not (inside_ok and _inside(top, p)):
            return False
    return bool(q.resolved_paths)


def _inside(root: str, resolved: str) -> bool:
    """An unresolvable path is kept as given (not absolute): never inside."""
    return resolved.startswith("/") and within(root, resolved)


def outside_resolved(q: PermissionQuestion, root: Path) -> list[str]:
    """The resolved forms of ``q.outside_paths``, in the same (argument) order."""
    return [p for p in q.resolved_paths if not _inside(str(root), p)]


def headless_reason(q: PermissionQuestion, root: Path) -> str:
    if q.outside_paths:
        resolved = outside_resolved(q, root)
        where = ", ".join(
            raw if raw == r else f"{raw} ({r})"
            for raw, r in zip(q.outside_paths, resolved, strict=False)
        )
        keys = " ".join(f"'{path_key(q.tool_name, r)}'" for r in resolved)
        if q.tool_name == SHELL_TOOL and isinstance(command := q.tool_input.get("command"), str):
            keys = f"'{exact_grant(command)}'"
        return (
            f"{q.tool_name} on {where}, outside the working folder, needs the user's "
            "permission and no one can answer in this headless run (--allow-tools does not "
            f"cover paths outside the folder); allow it with `milk-tui permissions grant {keys}`"
        )
    return (
        f"{q.tool_name} needs the user's permission and no one can answer in this headless run; "
        f"allow it with --allow-tools or `milk-tui permissions grant {q.tool_name}`"
    )


def user_denial_reason(reason: str) -> str:
    reason = reason.strip()
    return f"the user said no: {reason}" if reason else "the user said no"


def preview_for(q: PermissionQuestion, cwd: str) -> str:
    """The diff a file write/edit would make ("" for other tools or unreadable files)."""
    path = edited_path(q.tool_name, q.tool_input)
    if path is None:
        return ""
    current: str | None = None
    try:
        target = resolve(Path(cwd), path)
        if target.stat().st_size > PREVIEW_MAX_BYTES:
            return ""
        current = Path(target).read_text(encoding="utf-8")
    except FileNotFoundError:
        current = None
    except (ToolFailure, OSError, RuntimeError, UnicodeDecodeError):
        return ""
    return edit_preview(q.tool_name, q.tool_input, current)
