"""The real program in a real terminal: tmux types a prompt into ``milk-tui --demo``.

Checks what a user sees (answer, need pane), that Ctrl+Q quits cleanly, and that the
session is on disk afterwards (via the CLI, not the database).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from peer_missing import skip_peer_missing

pytestmark = pytest.mark.real_peer

TMUX = shutil.which("tmux")
MILK = Path(sys.executable).with_name("milk-tui")
WAIT_S = 30.0
"""Generous: the box may be busy with other suites; polls return as soon as text shows."""


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Callable[..., subprocess.CompletedProcess[str]]]:
    if TMUX is None or not MILK.exists():
        skip_peer_missing("tmux or the milk-tui entry point")
    # One server per test: a socket reused within a worker can reach the previous test's
    # server while it is still exiting after kill-server ("server exited unexpectedly").
    socket = f"milk-smoke-{os.getpid()}-{uuid.uuid4().hex[:8]}"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [TMUX, "-L", socket, *args], capture_output=True, text=True, timeout=20
        )

    yield run
    run("kill-server")


def wait_for(tmux, predicate, what: str) -> str:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + WAIT_S
    screen = ""
    while time.monotonic() < deadline:
        screen = tmux("capture-pane", "-p", "-t", "smoke").stdout
        if predicate(screen):
            return screen
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}; screen was:\n{screen}")


def test_tmux_smoke(tmux, tmp_path: Path, milk_home: Path) -> None:  # type: ignore[no-untyped-def]
    project = tmp_path / "project"
    project.mkdir()
    env = f"MILK_HOME={milk_home} MILK_DEMO_PACE=0.002 TERM=xterm-256color"
    # The short sleep lets tmux settle the pane size before the app reads it.
    cmd = f"cd {project} && sleep 0.5 && {env} {MILK} --demo; echo MILK-EXIT=$?; sleep 30"
    r = tmux("new-session", "-d", "-s", "smoke", "-x", "120", "-y", "40", cmd)
    assert r.returncode == 0, r.stderr
    tmux("resize-window", "-t", "smoke", "-x", "120", "-y", "40")  # some tmux builds ignore -x/-y
    before = wait_for(
        tmux, lambda s: "Demo agents are running" in s and "Current need" in s, "the welcome view"
    )
    assert "no need recorded yet" in before
    tmux("send-keys", "-t", "smoke", "-l", "what is a monad?")
    wait_for(tmux, lambda s: " what is a monad?" in s, "the typed prompt")
    tmux("send-keys", "-t", "smoke", "Enter")
    screen = wait_for(
        tmux, lambda s: "Short answer from demo-local" in s and "ready" in s, "the answer"
    )
    assert any(line.rfind("│ what is a monad") > 80 for line in screen.splitlines()), screen
    assert "current" in screen
    tmux("send-keys", "-t", "smoke", "C-q")
    wait_for(tmux, lambda s: "MILK-EXIT=0" in s, "a clean exit")
    out = subprocess.run(
        [str(MILK), "sessions", "list", "--json"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "MILK_HOME": str(milk_home)},
    )
    assert out.returncode == 0, out.stderr
    sessions = json.loads(out.stdout)
    assert len(sessions) == 1 and sessions[0]["turns"] == 2
    assert sessions[0]["current_need"] == "what is a monad"


def test_tmux_alt_enter_inserts_a_newline(tmux, tmp_path: Path, milk_home: Path) -> None:  # type: ignore[no-untyped-def]
    """tmux sends Alt+Enter as ESC CR: help lists it as Newline, so it must not send."""
    env = f"MILK_HOME={milk_home} MILK_DEMO_PACE=0.002 TERM=xterm-256color"
    cmd = f"cd {tmp_path} && sleep 0.5 && {env} {MILK} --demo; echo MILK-EXIT=$?; sleep 30"
    r = tmux("new-session", "-d", "-s", "smoke", "-x", "120", "-y", "40", cmd)
    assert r.returncode == 0, r.stderr
    tmux("resize-window", "-t", "smoke", "-x", "120", "-y", "40")
    wait_for(tmux, lambda s: "Current need" in s, "the welcome view")
    tmux("send-keys", "-t", "smoke", "-l", "first line")
    wait_for(tmux, lambda s: " first line" in s, "the typed prompt")
    tmux("send-keys", "-t", "smoke", "M-Enter")
    tmux("send-keys", "-t", "smoke", "-l", "second line")
    tmux("send-keys", "-t", "smoke", "C-j")
    tmux("send-keys", "-t", "smoke", "-l", "third line")
    screen = wait_for(tmux, lambda s: " third line" in s, "the third line")
    lines = screen.splitlines()
    rows = [
        i
        for i, line in enumerate(lines)
        for word in ("first line", "second line", "third line")
        if word in line
    ]
    assert len(rows) == 3 and rows[0] + 1 == rows[1] and rows[1] + 1 == rows[2], screen
    assert "Short answer" not in screen  # nothing was sent
    tmux("send-keys", "-t", "smoke", "C-q")
    wait_for(tmux, lambda s: "MILK-EXIT=0" in s, "a clean exit")
