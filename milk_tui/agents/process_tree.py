"""Kill a CLI turn and everything it started, even tools that left its process group.

Why not just ``killpg``: the real Claude CLI runs each Bash tool command in a NEW session
(``setsid``; verified with 2.1.197), so the tool's shell and its children are outside the
CLI's process group, and the CLI dies on SIGTERM without taking them along — they would
be orphaned and keep running.  So before signalling we snapshot the CLI's descendants
(``psutil``: Linux, macOS and the BSDs alike) and signal every process group among them
together with the CLI's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal

KILL_GRACE_S = 1.0
"""After SIGTERM, how long before SIGKILL (a tool may ignore TERM)."""


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (children, theirs, …); [] when ``pid`` is gone."""
    import psutil

    try:
        return [c.pid for c in psutil.Process(pid).children(recursive=True)]
    except (psutil.Error, OSError):
        return []


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
