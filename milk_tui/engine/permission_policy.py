"""The permission rules for every tool call of every agent, in one place.

A read inside the working folder runs freely.  Any other call (a tool that writes, runs or
reaches the network, or a path outside the folder) is decided in this order: the
session's skip-permissions switch (or ``--allow-tools``) allows; a stored grant of the tool
for this folder (or, for the Claude CLI, its own stored allow rules) allows; with no one to ask (headless ``-p``) it is denied with the reason;
otherwise the user is asked (docs/adr/0011-permissions-in-one-place.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from milk_tui.agents.base import PermissionQuestion
from milk_tui.agents.tools.paths import ToolFailure, resolve
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
    q: PermissionQuestion, *, skip: bool, granted: frozenset[str], can_ask: bool
) -> Decision | None:
    """The decision without asking anyone, or None when the user must be asked."""
    if skip:
        return Decision(True, "skip")
    if is_granted(q, granted):
        return Decision(True, "grant")
    if not can_ask:
        return Decision(False, "headless", headless_reason(q))
    return None


def is_granted(q: PermissionQuestion, granted: frozenset[str]) -> bool:
    """A milk grant of the tool, or every rule the backend would store for "Always"
    (``granted`` then holds the backend's stored rules as well)."""
    return q.tool_name in granted or bool(q.always_rules and set(q.always_rules) <= granted)


def headless_reason(q: PermissionQuestion) -> str:
    what = f"{q.tool_name} outside the working folder" if q.outside_paths else q.tool_name
    return (
        f"{what} needs the user's permission and no one can answer in this headless run; "
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
