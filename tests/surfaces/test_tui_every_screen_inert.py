"""The real TUI in tmux, every screen opened over outside text full of terminal controls:
the pane title and tmux's paste buffers never change, and no payload escape is on screen.

tmux runs with ``set-clipboard on`` (an OSC 52 becomes a paste buffer), ``set-titles on``
and ``allow-rename on`` (an OSC 0/2 sets the pane title).  The payload
(``milk_tui/testing/hostile_text.py``) is in the session title, the stored reply, the
agents' names and models, a fact, the input history, the project folder's name, the MCP
servers' names, tool names, descriptions and stderr (``milk_tui/testing/mcp_payload_server.py``),
a new reply, and a tool call's command in the permission question.  The screens: main,
permission question, ``/mcp`` and its tools view, facts (F6), sessions (F7), help (F1),
``/agent``, ``/usage``, history search (Ctrl+R).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from peer_missing import skip_peer_missing

from milk_tui.config.paths import database_file
from milk_tui.testing.cli_run import run_milk
from milk_tui.testing.fake_openai import FakeOpenAIServer
from milk_tui.testing.fake_openai_reply import FakeReply, FakeToolCall, usage
from milk_tui.testing.hostile_text import PAYLOAD, PAYLOAD_ESCAPES, TITLE_MARK, payload_for
from surfaces.test_cli_every_command_inert import ARG, _config

pytestmark = pytest.mark.real_peer

TMUX = shutil.which("tmux")
MILK = Path(sys.executable).with_name("milk-tui")
WAIT_S = 60.0
"""Generous: MCP servers start and the box may be busy; polls return as soon as text shows."""
SHOWN = "evil␛]0;pwned␇"
"""The payload's start, inert, as a screen shows it."""
TMUX_CONF = (
    "set -g set-clipboard on\nset -g set-titles on\nset -g allow-rename on\n"
    "set -g automatic-rename off\n"  # the window name changes only by an escape
)

LAUNCH = """\
import json, os, sys, time
spec = json.load(open(sys.argv[1]))
while not os.path.exists(spec["go"]):  # the test records the title and buffers first
    time.sleep(0.05)
os.chdir(spec["cwd"])
os.execve(spec["argv"][0], spec["argv"], spec["env"])
"""


class Tmux:
    def __init__(self, conf: Path) -> None:
        assert TMUX is not None
        self.bin, self.conf = TMUX, conf
        self.socket = f"milk-surf-{os.getpid()}-{uuid.uuid4().hex[:8]}"

    def __call__(self, *args: str) -> str:
        r = subprocess.run(
            [self.bin, "-L", self.socket, "-f", str(self.conf), *args],
            capture_output=True,
            timeout=20,
        )
        return r.stdout.decode("utf-8", "replace")

    def raw_screen(self) -> bytes:
        """The pane with its attributes (``-e``), as bytes: what the app made of the screen."""
        return subprocess.run(
            [self.bin, "-L", self.socket, "capture-pane", "-e", "-p", "-t", "surf"],
            capture_output=True,
            timeout=20,
        ).stdout

    def screen(self) -> str:
        return self("capture-pane", "-p", "-t", "surf")

    def keys(self, *keys: str, literal: bool = False) -> None:
        self("send-keys", "-t", "surf", *(["-l"] if literal else []), *keys)

    def until(self, predicate: Callable[[str], bool], what: str) -> str:
        deadline = time.monotonic() + WAIT_S
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if predicate(screen):
                return screen
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {what}; screen was:\n{screen}")

    def title(self) -> str:
        return self("display-message", "-p", "-t", "surf", "#{pane_title}|#{window_name}")

    def buffers(self) -> str:
        return self("list-buffers")


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    if TMUX is None or not MILK.exists():
        skip_peer_missing("tmux or the milk-tui entry point")
    conf = tmp_path / "tmux.conf"
    conf.write_text(TMUX_CONF)
    t = Tmux(conf)
    yield t
    t("kill-server")


def _seed(project: Path, env: dict[str, str], srv: FakeOpenAIServer) -> None:
    """A stored turn (reply, session title, an attached file, an MCP tool's result), a
    fact and an input history entry."""
    attached = project / (payload_for("filename")[:80] + ".txt")
    attached.write_text("notes\n")
    srv.enqueue(FakeReply(tool_calls=[FakeToolCall("mcp__hostile__plain", "{}")]))
    r = run_milk(
        "-p", "first " + ARG, "--session", ARG, "--attach", str(attached), "--allow-tools",
        cwd=project, env=env,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    sent = srv.chat_requests[1].json["messages"]
    assert any(PAYLOAD[:20] in str(m.get("content")) for m in sent), "the tool's result"
    r = run_milk("memory", "add", "fact " + ARG, "--scope", "global", cwd=project, env=env)
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(database_file()) as con:  # a prompt typed in an earlier run
        (sid,) = con.execute("SELECT id FROM sessions ORDER BY rowid DESC LIMIT 1").fetchone()
        con.execute(
            "INSERT INTO input_history (session_id, text, ts) VALUES (?,?,?)",
            (sid, "typed " + PAYLOAD, time.time()),
        )


@pytest.mark.timeout(600)  # a dozen screens, each waited for with its own deadline
def test_every_screen_shows_outside_text_inert(tmux: Tmux, tmp_path: Path, milk_home: Path) -> None:
    project = tmp_path / payload_for("filename")
    project.mkdir()
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(
            text=["Answer ", PAYLOAD[:40], PAYLOAD[40:]], model=PAYLOAD, usage=usage(9, 9)
        )
        config = _config(milk_home, srv.url)
        env = {
            **os.environ,
            "MILK_HOME": str(milk_home),
            "MILK_CONFIG": str(config),
            "TERM": "xterm-256color",
        }
        for k in ("NO_COLOR", "FORCE_COLOR", "TEXTUAL"):
            env.pop(k, None)
        _seed(project, env, srv)
        call = FakeToolCall("bash", json.dumps({"command": "echo " + PAYLOAD}))
        srv.enqueue(FakeReply(tool_calls=[call], model=PAYLOAD))  # the next prompt's turn

        go = tmp_path / "go"
        spec = tmp_path / "spec.json"
        spec.write_text(
            json.dumps(
                {
                    "go": str(go),
                    "cwd": str(project),
                    "env": env,
                    "argv": [str(MILK), "--session", ARG],
                }  # fmt: skip
            )
        )
        launcher = tmp_path / "launch.py"
        launcher.write_text(LAUNCH)
        cmd = f"{sys.executable} {launcher} {spec}; echo MILK-EXIT=$?; sleep 60"
        tmux("new-session", "-d", "-s", "surf", "-n", "surfwin", "-x", "160", "-y", "50", cmd)
        tmux("resize-window", "-t", "surf", "-x", "160", "-y", "50")
        title, buffers = tmux.title(), tmux.buffers()
        assert TITLE_MARK not in title and buffers == ""
        go.touch()

        problems: list[str] = []

        def check(where: str, *, shows: bool = True) -> None:
            raw = tmux.raw_screen()
            for esc in PAYLOAD_ESCAPES:
                if esc in raw:
                    problems.append(f"{where}: the screen holds {esc!r}")
            if tmux.title() != title:
                problems.append(f"{where}: the title changed from {title!r} to {tmux.title()!r}")
            if tmux.buffers() != buffers:
                problems.append(f"{where}: a paste buffer appeared: {tmux.buffers()!r}")
            if shows and SHOWN not in tmux.screen():
                problems.append(f"{where}: the payload is not on screen:\n{tmux.screen()}")

        def open_screen(keys: list[str], ready: str, where: str, *, shows: bool = True) -> None:
            for k in keys:
                literal = k.startswith("/")
                tmux.keys(k, literal=literal)
                if literal:
                    tmux.keys("Enter")
            tmux.until(lambda s: ready in s and (SHOWN in s or not shows), where)
            check(where, shows=shows)

        def close(marker: str) -> None:
            tmux.keys("Escape")
            tmux.until(lambda s: "Current need" in s and marker not in s, f"{marker!r} to close")
            if "Enter sends" not in tmux.screen():
                tmux.keys("Escape")  # the main screen's Esc: back to the prompt
                tmux.until(lambda s: "Enter sends" in s, "the prompt focused")

        try:
            tmux.until(lambda s: "Current need" in s and SHOWN in s, "the main screen")
            check("main")

            tmux.keys("run it", literal=True)
            tmux.keys("Enter")
            tmux.until(lambda s: "wants to use bash" in s, "the permission question")
            check("permission question")
            tmux.keys("n")
            tmux.until(lambda s: "ready" in s and "Answer" in s, "the reply after the refusal")
            check("main after a turn")

            open_screen(["/mcp"], "MCP servers", "/mcp")
            tmux.until(lambda s: "starting" not in s, "the MCP servers settled")
            tmux.keys("t")
            tmux.until(lambda s: "mcp__" in s, "the tools view")
            check("/mcp tools")
            tmux.keys("Down", "Down", "Down")  # the last row: the dead server
            tmux.keys("t")  # its stderr
            tmux.until(lambda s: "down: the process exited" in s, "the dead server's error")
            check("/mcp dead server", shows=False)
            close("MCP servers")

            for keys, marker, where in (
                ("/memory", "scope: visible here", "facts (/memory, F6)"),
                ("/sessions", "Sessions —", "sessions (/sessions, F7)"),
                ("/help", "Slash commands", "help (/help, F1)"),
                ("/agent", "Agents —", "/agent"),
                ("/usage", "Usage —", "/usage"),
                ("C-r", "search history…", "history search (Ctrl+R)"),
            ):
                open_screen([keys], marker, where, shows=not where.startswith("help"))
                close(marker)
            tmux.keys("C-q")
            tmux.until(lambda s: "MILK-EXIT=" in s, "the app to quit")
            check("after quitting", shows=False)
        except AssertionError as e:  # a wait that timed out: say what was seen before it
            raise AssertionError(f"{e}\nproblems before it:\n" + "\n".join(problems)) from None
    assert not problems, "\n".join(problems)
