"""The permission question in a real terminal: tmux runs ``milk-tui`` against the fake
OpenAI server, whose model asks to run a command that hides a second line under 80 blank
lines.  The question shows that line and the blank-line marker; a reason typed straight
away (focus never in the reason box first) lands in the box and answers nothing; Enter
then denies, and the hidden command never ran."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall
from tui.test_tmux_smoke import MILK, tmux, wait_for

__all__ = ["tmux"]  # the fixture, imported for this module

pytestmark = pytest.mark.real_peer

Tmux = Callable[..., subprocess.CompletedProcess[str]]


def test_typing_a_reason_into_the_question_answers_nothing(
    tmux: Tmux, tmp_path: Path, milk_home: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    command = "echo hello" + "\n" * 81 + "touch pwned"
    with FakeOpenAIServer() as srv:
        call = FakeToolCall("bash", json.dumps({"command": command}), id="b1")
        srv.enqueue(FakeReply(tool_calls=[call]), FakeReply(text=["Understood, not run."]))
        (milk_home / "config.toml").write_text(
            'agent = "fake"\nescalation_agent = "fake"\n[[agents]]\nname = "fake"\n'
            f'provider = "local"\nurl = "{srv.url}"\nmodel = "m"\n'
        )
        env = f"MILK_HOME={milk_home} TERM=xterm-256color"
        cmd = f"cd {project} && sleep 0.5 && {env} {MILK}; echo MILK-EXIT=$?; sleep 30"
        r = tmux("new-session", "-d", "-s", "smoke", "-x", "100", "-y", "40", cmd)
        assert r.returncode == 0, r.stderr
        tmux("resize-window", "-t", "smoke", "-x", "100", "-y", "40")
        wait_for(tmux, lambda s: "Type a prompt" in s, "the prompt")
        tmux("send-keys", "-t", "smoke", "-l", "tidy up")
        tmux("send-keys", "-t", "smoke", "Enter")
        screen = wait_for(tmux, lambda s: "wants to use bash" in s, "the permission question")
        assert "⋯ 80 blank lines ⋯" in screen and "touch pwned" in screen, screen
        tmux("send-keys", "-t", "smoke", "-l", "please no, and do not retry")
        screen = wait_for(tmux, lambda s: "please no, and do not retry" in s, "the typed reason")
        assert "wants to use bash" in screen, screen  # still asking: no letter answered
        tmux("send-keys", "-t", "smoke", "Enter")
        wait_for(tmux, lambda s: "bash: denied" in s, "the denial notice")
        wait_for(tmux, lambda s: "Understood, not run." in s, "the model's answer")
        tmux("send-keys", "-t", "smoke", "C-q")
        wait_for(tmux, lambda s: "MILK-EXIT=0" in s, "a clean exit")
        sent = srv.chat_requests[-1].body.decode()
    assert not (project / "pwned").exists()
    assert "the user said no: please no, and do not retry" in sent
