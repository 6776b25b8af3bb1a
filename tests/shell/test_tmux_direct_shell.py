"""The direct shell in a real terminal (tmux, 80×24 and 160×45): a child that prints an
OSC 52 clipboard write, a window title and the alternate screen is drawn in the pane and
never reaches the terminal raw (tmux's pane title and clipboard buffer stay untouched);
a word typed into the one-key question runs nothing."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from tui.test_tmux_smoke import MILK, tmux, wait_for

from milk_tui.testing.fake_openai import FakeOpenAIServer

__all__ = ["tmux"]

pytestmark = pytest.mark.real_peer

Tmux = Callable[..., subprocess.CompletedProcess[str]]
HOSTILE = (
    "import sys; sys.stdout.write('\\x1b]52;c;cHduZWQ=\\x07\\x1b]2;owned-title\\x07"
    "\\x1b[?1049hALT\\x1b[?1049l\\x1b[31mred-text\\x1b[0m done-printing\\n')"
)


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
def test_a_hostile_child_stays_in_its_pane_and_typing_runs_nothing(
    tmux: Tmux, tmp_path: Path, milk_home: Path, size: tuple[int, int]
) -> None:
    cols, rows = size
    project = tmp_path / "project"
    project.mkdir()
    (project / "hostile.py").write_text(HOSTILE)
    with FakeOpenAIServer() as srv:
        (milk_home / "config.toml").write_text(
            'agent = "fake"\nescalation_agent = "fake"\ndirect_bash = true\n'
            'direct_bash_allow = ["echo"]\n[[agents]]\nname = "fake"\n'
            f'provider = "local"\nurl = "{srv.url}"\nmodel = "m"\n'
        )
        env = f"MILK_HOME={milk_home} TERM=xterm-256color"
        cmd = f"cd {project} && sleep 0.5 && {env} {MILK}; echo MILK-EXIT=$?; sleep 30"
        r = tmux("new-session", "-d", "-s", "smoke", "-x", str(cols), "-y", str(rows), cmd)
        assert r.returncode == 0, r.stderr
        tmux("resize-window", "-t", "smoke", "-x", str(cols), "-y", str(rows))
        tmux("set-option", "-t", "smoke", "set-clipboard", "on")
        title = tmux("display-message", "-p", "-t", "smoke", "#{pane_title}").stdout
        wait_for(tmux, lambda s: "Type a prompt" in s, "the prompt")
        tmux("send-keys", "-t", "smoke", "-l", f"{sys.executable} hostile.py")
        tmux("send-keys", "-t", "smoke", "Enter")
        screen = wait_for(tmux, lambda s: "run in the shell?" in s, "the one-key question")
        tmux("send-keys", "-t", "smoke", "-l", "yes, go on")  # typed at once: not an answer
        # every typed key is back in the box, in order, those the question still had queued
        # when it closed included
        wait_for(tmux, lambda s: "not run" in s and "yes, go on" in s, "the keys in the box")
        tmux("send-keys", "-t", "smoke", "C-u")  # clear the box
        wait_for(tmux, lambda s: "Type a prompt" in s, "the box cleared")
        tmux("send-keys", "-t", "smoke", "-l", f"!{sys.executable} hostile.py")
        tmux("send-keys", "-t", "smoke", "Enter")
        screen = wait_for(tmux, lambda s: "exit 0" in s, "the command's end")
        assert "red-text done-printing" in screen, screen
        Path(tmp_path / f"pane-{cols}x{rows}.txt").write_text(screen)
        tmux("send-keys", "-t", "smoke", "Enter")
        screen = wait_for(tmux, lambda s: "next prompt" in s, "the attached notice")
        after = tmux("display-message", "-p", "-t", "smoke", "#{pane_title}").stdout
        assert after == title and "owned" not in after
        buffers = tmux("list-buffers").stdout
        assert "cHduZWQ" not in buffers and "pwned" not in buffers
        tmux("send-keys", "-t", "smoke", "C-q")
        wait_for(tmux, lambda s: "MILK-EXIT=0" in s, "a clean exit")
    assert srv.chat_requests == []
