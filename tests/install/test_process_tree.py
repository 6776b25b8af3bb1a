"""Cancelling a CLI turn kills its whole tree through psutil, including a tool that left the
CLI's process group for a session of its own (as the Claude CLI's Bash tool does)."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import psutil

from milk_tui.agents.process_tree import descendants, kill_tree, tree_groups

# A "CLI" (its own group) that starts a "tool" in a new session, which starts a grandchild;
# each writes its pid so the test knows the whole tree.
_TREE = r"""
import os, subprocess, sys, time
out = sys.argv[1]
tool = subprocess.Popen([sys.executable, "-c",
    "import subprocess, sys, time; c = subprocess.Popen(['sleep', '300']);"
    "open(sys.argv[1] + '/grandchild', 'w').write(str(c.pid)); time.sleep(300)", out],
    start_new_session=True)
open(out + "/tool", "w").write(str(tool.pid))
time.sleep(300)
"""


def _wait_for(cond, what: str, deadline_s: float = 30.0) -> None:
    end = time.monotonic() + deadline_s
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


async def test_kill_tree_reaches_a_tool_in_its_own_session(tmp_path: Path) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _TREE, str(tmp_path), start_new_session=True
    )
    try:
        _wait_for(lambda: (tmp_path / "grandchild").exists() and (tmp_path / "tool").exists()
                  and (tmp_path / "grandchild").read_text() != "", "the tree to start")  # fmt: skip
        tool = int((tmp_path / "tool").read_text())
        grandchild = int((tmp_path / "grandchild").read_text())
        assert {tool, grandchild} <= set(descendants(proc.pid))
        assert tree_groups(proc.pid) == {proc.pid, tool}  # the tool leads a group of its own
        assert os.getpgid(tool) != os.getpgid(proc.pid)
        await kill_tree(proc)
        _wait_for(lambda: _gone(tool) and _gone(grandchild), "the tool and its child to die")
        assert proc.returncode is not None
    finally:
        for p in psutil.Process().children(recursive=True):
            p.kill()


def test_descendants_of_a_process_that_is_gone_is_empty() -> None:
    p = psutil.Popen(["true"])
    p.wait()
    assert descendants(p.pid) == []
