"""Untrusted text through the real command line to a real pty: a reply, a fact and a session
name full of escape sequences never set the title, clear the screen or write the clipboard.

The bytes the program wrote to the pty go to a terminal emulator (pyte); JSON output is
checked to carry the exact text, escaped.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import time
import uuid
from pathlib import Path

from peer_missing import skip_peer_missing

from milk_tui.testing.cli_run import MILK_COMMAND
from milk_tui.testing.cli_run import run_milk as milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.testing.pty_run import run_in_pty

REPLY_CHUNKS = [
    "Answer: ",
    "\x1b]5",  # OSC 52 (clipboard write) cut across three chunks
    "2;c;Y2xpcC1tYXJr",
    "\x07 then \x1b]0;REPLY-TI",  # OSC 0 (title) cut inside its text
    "TLE\x1b\\ then \x1b[",
    "2J\x1b[H wiped? \x9d2;C1-TITLE\x9c \x1bP1$qm\x1b\\ \x1b]8;;https://e.example/\x07link",
    "\x1b]8;;\x07 back\rOVER \u202eesrever\u202c [bold red]red[/] [@click=app.quit]q[/] end",
]
REPLY = "".join(REPLY_CHUNKS)
FACT = "pref \x1b]2;FACT-TITLE\x07 \x1b]52;c;ZmFjdC1jbGlw\x07 \x1b[2J [b]x[/b]"
SESSION = "s\x1b]0;SESSION-TITLE\x07n"


def _config(home: Path, url: str) -> None:
    (home / "config.toml").write_text(
        f'agent = "llama"\nescalation_agent = "big"\n'
        f'[[agents]]\nname = "llama"\nprovider = "local"\nurl = "{url}"\n'
        f'[[agents]]\nname = "big"\nprovider = "local"\nurl = "{url}"\n'
    )


def _assert_nothing_reached_the_terminal(raw: bytes, screen_title: str) -> None:
    assert b"\x1b]" not in raw  # no OSC at all: no clipboard, title or hyperlink
    assert b"\x1bP" not in raw and b"\x1b[2J" not in raw
    assert "\x9d".encode() not in raw and "\x9b".encode() not in raw
    assert screen_title == ""


def _pty_env(home: Path) -> dict[str, str]:
    return {**os.environ, "MILK_HOME": str(home), "TERM": "xterm-256color"}


def test_print_mode_streams_the_reply_inert(tmp_path: Path, milk_home: Path) -> None:
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=REPLY_CHUNKS)
        _config(milk_home, srv.url)
        run = run_in_pty(
            [*MILK_COMMAND, "-p", "hello", "--primary", "--session", SESSION],
            cwd=tmp_path,
            env=_pty_env(milk_home),
        )
    assert run.code == 0, run.raw
    _assert_nothing_reached_the_terminal(bytes(run.raw), run.screen.title)
    shown = run.flat()
    assert "Answer: ␛]52;c;Y2xpcC1tYXJr␇ then ␛]0;REPLY-TITLE␛\\ then ␛[2J␛[H wiped?" in shown
    assert "⟨OSC⟩2;C1-TITLE⟨ST⟩ ␛P1$qm␛\\ ␛]8;;https://e.example/␇link" in shown
    assert "back␍OVER ⟨RLO⟩esrever⟨PDF⟩ [bold red]red[/] [@click=app.quit]q[/] end" in shown

    # The JSON of the same turn carries the exact reply, escaped.
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=REPLY_CHUNKS)
        _config(milk_home, srv.url)
        r = milk("-p", "again", "--primary", "--output-format", "stream-json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout and "\x9d" not in r.stdout and "\u202e" not in r.stdout
    events = [json.loads(line) for line in r.stdout.splitlines()]
    text = "".join(e["text"] for e in events if e["type"] == "text_delta")
    assert text == REPLY
    assert [e["text"] for e in events if e["type"] == "turn_completed"] == [REPLY]


def test_memory_and_sessions_print_inert_and_json_exact(tmp_path: Path, milk_home: Path) -> None:
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=REPLY_CHUNKS)
        _config(milk_home, srv.url)
        assert milk("-p", "hi", "--primary", "--session", SESSION, cwd=tmp_path).returncode == 0
    added = milk("memory", "add", FACT, "--scope", "global", cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    assert "\x1b" not in added.stdout and "␛]2;FACT-TITLE␇" in added.stdout
    env = _pty_env(milk_home)

    listing = run_in_pty([*MILK_COMMAND, "memory", "list"], cwd=tmp_path, env=env)
    assert listing.code == 0
    _assert_nothing_reached_the_terminal(bytes(listing.raw), listing.screen.title)
    assert "pref ␛]2;FACT-TITLE␇ ␛]52;c;ZmFjdC1jbGlw␇ ␛[2J" in listing.flat()

    for argv in (["sessions", "list"], ["sessions", "show", SESSION]):
        run = run_in_pty([*MILK_COMMAND, *argv], cwd=tmp_path, env=env)
        assert run.code == 0, run.text()
        _assert_nothing_reached_the_terminal(bytes(run.raw), run.screen.title)
        assert "s␛]0;SESSION-TITLE␇n" in run.flat()
    assert "Answer: ␛]52;c;Y2xpcC1tYXJr␇" in run.flat()  # the reply in `sessions show`

    facts = json.loads(milk("memory", "list", "--json", cwd=tmp_path).stdout)
    assert [f["content"] for f in facts] == [FACT]
    shown = milk("sessions", "show", SESSION, "--json", cwd=tmp_path).stdout
    assert "\x1b" not in shown and "\x9d" not in shown
    session = json.loads(shown)
    assert session["name"] == SESSION and session["history"][-1]["content"] == REPLY


def test_in_tmux_neither_clipboard_nor_title_is_set(tmp_path: Path, milk_home: Path) -> None:
    """tmux is a terminal that honours OSC 52 (into a paste buffer) and OSC 0/2 (the pane
    title): after `-p`, `memory list` and `sessions show` it holds neither."""
    tmux_bin = shutil.which("tmux")
    if tmux_bin is None:
        skip_peer_missing("tmux")
    socket = f"milk-inert-{os.getpid()}-{uuid.uuid4().hex[:8]}"

    def tmux(*args: str) -> str:
        r = subprocess.run([tmux_bin, "-L", socket, *args], capture_output=True, text=True,
                           timeout=20)  # fmt: skip
        return r.stdout

    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=REPLY_CHUNKS)
        _config(milk_home, srv.url)
        assert milk("memory", "add", FACT, "--scope", "global", cwd=tmp_path).returncode == 0
        milk_cmd = " ".join(shlex.quote(a) for a in MILK_COMMAND)
        script = tmp_path / "run.sh"
        script.write_text(
            f"cd {shlex.quote(str(tmp_path))}\n"
            f"export MILK_HOME={shlex.quote(str(milk_home))}\n"
            f"{milk_cmd} -p hello --primary --session {shlex.quote(SESSION)}\n"
            f"{milk_cmd} memory list\n{milk_cmd} sessions show {shlex.quote(SESSION)}\n"
            "echo INERT-DONE; sleep 30\n"
        )
        try:
            tmux("-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "160", "-y", "50",
                 f"sh {shlex.quote(str(script))}")  # fmt: skip
            tmux("set-option", "-g", "set-clipboard", "on")
            tmux("set-option", "-g", "allow-rename", "on")
            deadline = time.monotonic() + 60
            screen = ""
            while time.monotonic() < deadline and "INERT-DONE" not in screen:
                time.sleep(0.2)
                screen = tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", "t")
            assert "INERT-DONE" in screen, screen
            title = tmux("display-message", "-p", "-t", "t", "#{pane_title}")
            buffers = tmux("list-buffers")
        finally:
            tmux("kill-server")
    assert "TITLE" not in title, title
    assert buffers.strip() == "", buffers  # OSC 52 would have stored a paste buffer
    assert "␛]52;c;Y2xpcC1tYXJr␇" in screen and "pref ␛]2;FACT-TITLE␇" in screen
    assert "s␛]0;SESSION-TITLE␇n" in screen
