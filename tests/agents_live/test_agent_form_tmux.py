"""The ``/agent add`` form in a real 80×24 terminal: tmux types the whole entry as one burst
(Tab and Enter between the values), as a fast typist or a paste delivers it; every value
lands in its own field, the probe says the agent does not answer, and a second Ctrl+S
saves it with the keys typed."""

from __future__ import annotations

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

Tmux = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    if TMUX is None or not MILK.exists():
        skip_peer_missing("tmux or the milk-tui entry point")
    socket = f"milk-form-{os.getpid()}-{uuid.uuid4().hex[:8]}"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([TMUX, "-L", socket, *args], capture_output=True, text=True,
                              timeout=20)  # fmt: skip

    yield run
    run("kill-server")


def wait_for(tmux: Tmux, predicate: Callable[[str], bool], what: str) -> str:
    deadline = time.monotonic() + WAIT_S
    screen = ""
    while time.monotonic() < deadline:
        screen = tmux("capture-pane", "-p", "-t", "form").stdout
        if predicate(screen):
            return screen
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}; screen was:\n{screen}")


def row(screen: str, label: str) -> str:
    """The text after ``label`` on the form's row for it."""
    for line in screen.splitlines():
        cells = line.strip(" │").split(None, 1)
        if cells and cells[0] == label:
            return cells[1].strip() if len(cells) > 1 else ""
    raise AssertionError(f"no row {label!r} on screen:\n{screen}")


def test_a_burst_with_tabs_fills_each_field(tmux: Tmux, tmp_path: Path, milk_home: Path) -> None:
    env = f"MILK_HOME={milk_home} MILK_DEMO_PACE=0.002 TERM=xterm-256color"
    cmd = f"cd {tmp_path} && sleep 0.5 && {env} {MILK} --demo; echo MILK-EXIT=$?; sleep 30"
    assert tmux("new-session", "-d", "-s", "form", "-x", "80", "-y", "24", cmd).returncode == 0
    tmux("resize-window", "-t", "form", "-x", "80", "-y", "24")
    wait_for(tmux, lambda s: "Demo agents are running" in s, "the welcome view")
    tmux("send-keys", "-t", "form", "-l", "/agent add")
    tmux("send-keys", "-t", "form", "Enter")
    wait_for(tmux, lambda s: "Add an agent to the config file" in s, "the form")
    burst = "mine\tlocal\rhttp://127.0.0.1:9\tm1\t\t\t512\t30\taws_region=eu-west-1"
    tmux("send-keys", "-t", "form", "-l", burst)
    screen = wait_for(tmux, lambda s: row(s, "more") == "aws_region=eu-west-1", "the last value")
    assert [row(screen, k) for k in ("name", "provider", "url", "model", "max_tokens",
            "timeout_secs", "more")] == ["mine", "local", "http://127.0.0.1:9", "m1", "512",
            "30", "aws_region=eu-west-1"], screen  # fmt: skip
    for label in ("api_key", "token_cmd", "timeout_secs"):
        assert row(screen, label)  # every label whole at 80 columns, with its field
    tmux("send-keys", "-t", "form", "C-s")
    screen = wait_for(tmux, lambda s: "mine: down" in s, "the probe's answer")
    assert "saves it anyway" in screen
    tmux("send-keys", "-t", "form", "C-s")
    wait_for(tmux, lambda s: "agents added: mine" in s, "the entry saved")
    text = (milk_home / "config.toml").read_text()
    assert 'url = "http://127.0.0.1:9"' in text and "max_tokens = 512" in text
    assert "timeout_secs = 30" in text and 'aws_region = "eu-west-1"' in text
    tmux("send-keys", "-t", "form", "C-q")
    wait_for(tmux, lambda s: "MILK-EXIT=0" in s, "a clean exit")
