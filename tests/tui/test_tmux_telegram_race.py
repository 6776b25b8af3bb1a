"""In a real terminal: milk-tui asks to run a command, the question shows on screen and on the
fake phone; the phone presses Yes first, the terminal's question closes with "answered from
Telegram", and a late key in the terminal answers nothing."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall
from milk_tui.testing.fake_telegram import FakeTelegram
from tui.test_tmux_smoke import MILK, tmux, wait_for

__all__ = ["tmux"]

pytestmark = [pytest.mark.real_peer, pytest.mark.timeout(240)]

Tmux = Callable[..., subprocess.CompletedProcess[str]]
CHAT = 4242


def test_the_phone_wins_and_the_terminal_says_so(
    tmux: Tmux, tmp_path: Path, milk_home: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    with FakeOpenAIServer() as srv, FakeTelegram() as tg:
        call = FakeToolCall("bash", json.dumps({"command": "touch ran"}), id="b1")
        srv.enqueue(FakeReply(tool_calls=[call]), FakeReply(text=["All done."]))
        (milk_home / "config.toml").write_text(
            'agent = "fake"\nescalation_agent = "fake"\n[[agents]]\nname = "fake"\n'
            f'provider = "local"\nurl = "{srv.url}"\nmodel = "m"\n'
            '[remote_oversight]\nbackend = "telegram"\n[remote_oversight.telegram]\n'
            f'token = "{tg.token}"\nchat_id = {CHAT}\napi_url = "{tg.url}"\n'
        )
        (milk_home / "config.toml").chmod(0o600)
        env = f"MILK_HOME={milk_home} TERM=xterm-256color"
        cmd = f"cd {project} && sleep 0.5 && {env} {MILK}; echo MILK-EXIT=$?; sleep 30"
        r = tmux("new-session", "-d", "-s", "smoke", "-x", "100", "-y", "40", cmd)
        assert r.returncode == 0, r.stderr
        tmux("resize-window", "-t", "smoke", "-x", "100", "-y", "40")
        wait_for(tmux, lambda s: "Type a prompt" in s, "the prompt")
        tg.wait_for(lambda: tg.polls() >= 2, 60, "oversight polling")
        tmux("send-keys", "-t", "smoke", "-l", "make a file")
        tmux("send-keys", "-t", "smoke", "Enter")
        wait_for(tmux, lambda s: "wants to use bash" in s, "the permission question")
        msg = tg.wait_message(lambda m: bool(m.buttons), 60)
        assert "touch ran" in msg.text
        tg.press(CHAT, msg.message_id, msg.buttons[0][1])
        screen = wait_for(tmux, lambda s: "answered from Telegram" in s, "the terminal told")
        assert "wants to use bash" not in screen, screen
        wait_for(tmux, lambda s: "All done." in s, "the model's answer")
        tmux("send-keys", "-t", "smoke", "n")  # a late key: typed into the prompt, no answer
        tg.wait_message(lambda m: m.text.startswith("✅"), 60)
        tmux("send-keys", "-t", "smoke", "C-q")
        wait_for(tmux, lambda s: "MILK-EXIT=0" in s, "a clean exit")
        assert "answered here" in msg.edits[-1]
    assert (project / "ran").exists()
