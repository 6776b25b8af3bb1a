"""Kill a CLI turn and everything it started, even tools that left its process group.

Why not just ``killpg``: the real Claude CLI runs each Bash tool command in a NEW session
(``setsid``; verified with 2.1.197), so the tool's shell and its children are outside the
CLI's process group, and the CLI dies on SIGTERM without taking them along — they would
be orphaned and keep running.  So before signalling we snapshot the CLI's descendants
(Linux ``/proc``) and signal every process group among them together with the CLI's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

KILL_GRACE_S = 1.0
"""After SIGTERM, how long before SIGKILL (a tool may ignore TERM)."""


def _parent_map() -> dict[int, int]:
    """pid → ppid for every visible process ({} where /proc is missing)."""
    out: dict[int, int] = {}
    proc = Path("/proc")
    if not proc.is_dir():
        return out
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ..." — comm may contain spaces or parentheses.
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) >= 2:
            out[int(entry.name)] = int(fields[1])
    return out


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for child, parent in _parent_map().items():
        children.setdefault(parent, []).append(child)
    found: list[int] = []
    stack = [pid]
    while stack:
        for c in children.get(stack.pop(), []):
            found.append(c)
            stack.append(c)
    return found


def tree_groups(pid: int) -> set[int]:
    """Process groups to signal: the leader's own, plus any group led by a descendant.

    Only groups whose leader is in the tree are taken, so a descendant that somehow sits
    in a foreign group never makes us signal that group.
    """
    tree = {pid, *descendants(pid)}
    groups = {pid}
    for p in tree:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            g = os.getpgid(p)
            if g in tree:
                groups.add(g)
    return groups


def _signal_groups(groups: set[int], sig: signal.Signals) -> None:
    for g in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(g, sig)


async def kill_tree(proc: asyncio.subprocess.Process) -> None:
    """TERM every group of the tree at once, then KILL whatever is left after a grace."""
    groups = tree_groups(proc.pid)
    _signal_groups(groups, signal.SIGTERM)
    with contextlib.suppress(TimeoutError, asyncio.CancelledError):
        await asyncio.wait_for(asyncio.shield(proc.wait()), KILL_GRACE_S)
    _signal_groups(groups, signal.SIGKILL)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(proc.wait(), KILL_GRACE_S)


def kill_tree_now(proc: asyncio.subprocess.Process) -> None:
    _signal_groups(tree_groups(proc.pid), signal.SIGKILL)
