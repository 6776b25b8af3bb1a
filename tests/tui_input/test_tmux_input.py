"""The real program in tmux, keys sent in bursts as a fast typist or a paste sends them:
copying a reply and a code block lands in tmux's buffer (``set-clipboard on``: the app's
OSC 52), Tab cycles commands, and a failed prompt never glues onto the next command."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from tui.test_tmux_smoke import MILK, wait_for

pytestmark = pytest.mark.real_peer

CODE = "def step(state):\n    return state.next()\n"


def start(tmux, cwd: Path, home: Path, *args: str) -> None:  # type: ignore[no-untyped-def]
    env = f"MILK_HOME={home} MILK_DEMO_PACE=0.002 TERM=xterm-256color"
    cmd = f"cd {cwd} && sleep 0.5 && {env} {MILK} {' '.join(args)}; echo MILK-EXIT=$?; sleep 30"
    tmux("new-session", "-d", "-s", "smoke", "-x", "120", "-y", "40", cmd)
    tmux("set-option", "-g", "set-clipboard", "on")
    tmux("resize-window", "-t", "smoke", "-x", "120", "-y", "40")


def buffer(tmux) -> str:  # type: ignore[no-untyped-def]
    return tmux("show-buffer").stdout


def test_alt_k_and_alt_c_put_the_code_block_and_the_reply_in_tmux_buffer(
    tmux,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    milk_home: Path,
) -> None:
    start(tmux, tmp_path, milk_home, "--demo")
    wait_for(tmux, lambda s: "Current need" in s, "the welcome view")
    tmux("send-keys", "-t", "smoke", "-l", "/escalate plan the parser rewrite\r")
    wait_for(tmux, lambda s: "Shall I go ahead with step one?" in s, "the escalation's reply")
    tmux("send-keys", "-t", "smoke", "M-k")
    screen = wait_for(tmux, lambda s: "copied code block 1 of 1" in s, "the copy notice")
    assert buffer(tmux) == CODE, screen
    tmux("send-keys", "-t", "smoke", "M-c")
    wait_for(tmux, lambda s: "copied reply 1 of 1" in s, "the reply's copy notice")
    reply = buffer(tmux)
    assert reply.startswith("## plan the parser rewrite") and reply.rstrip().endswith(
        "Shall I go ahead with step one?"
    ), reply
    # The copied reply is shown selected: Ctrl+C copies it as shown, and does not quit.
    tmux("set-buffer", "cleared")
    tmux("send-keys", "-t", "smoke", "C-c")
    wait_for(tmux, lambda s: "copied the selection" in s, "the selection's copy notice")
    assert "plan the parser rewrite" in buffer(tmux)
    tmux("send-keys", "-t", "smoke", "C-q")
    wait_for(tmux, lambda s: "MILK-EXIT=0" in s, "a clean exit")


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_failed_prompt_is_replaced_by_a_burst_and_tab_cycles(
    tmux,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    milk_home: Path,
) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    (milk_home / "config.toml").write_text(
        f'agent = "gone"\nescalation_agent = "gone"\n'
        f'[[agents]]\nname = "gone"\nprovider = "local"\nurl = "{url}"\nmodel = "m"\n'
    )
    start(tmux, tmp_path, milk_home)
    wait_for(tmux, lambda s: "Current need" in s, "the main screen")
    tmux("send-keys", "-t", "smoke", "-l", "hi\r")
    wait_for(tmux, lambda s: "no agent reachable" in s or "error" in s.lower(), "the failure")
    # One burst right after the failure: "/think" then Enter.  Glued, it would be sent as
    # "hi/think" (an unknown prompt); replacing the restored prompt, it runs /think.
    tmux("send-keys", "-t", "smoke", "-l", "/think\r")
    screen = wait_for(tmux, lambda s: "thinking is" in s, "the /think answer")
    assert "hi/think" not in screen
    tmux("send-keys", "-t", "smoke", "-l", "/s\t\t")

    def in_prompt(s: str) -> bool:  # the pop-up lists it too, with its help after "—"
        return any("/skip-permissions" in line and "—" not in line for line in s.splitlines())

    wait_for(tmux, in_prompt, "two Tabs: the second command starting with /s")
    tmux("send-keys", "-t", "smoke", "C-q")
    wait_for(tmux, lambda s: "MILK-EXIT=0" in s, "a clean exit")
