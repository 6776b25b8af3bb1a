"""Every CLI command, walked from the parser itself, with outside text full of terminal
controls in every place it enters: no raw control byte reaches stdout or stderr.

The payload (``milk_tui/testing/hostile_text.py``) is an MCP server's name, its tool names
and descriptions and its stderr (``milk_tui/testing/mcp_payload_server.py``, a real server on the
SDK), a dead server's stderr, the fake OpenAI server's reply and model name, an agent's
name and model in the config, a fact, the session's title, the project folder's name and
an attached file's name, and every positional argument of every command.  A new
subcommand is walked without a change here; the TUI itself (no subcommand) is walked by
``test_tui_every_screen_inert.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from milk_tui.cli import build_parser
from milk_tui.model.terminal_text import inert
from milk_tui.testing.cli_run import MILK_COMMAND
from milk_tui.testing.fake_openai import FakeOpenAIServer
from milk_tui.testing.fake_openai_reply import FakeReply, FakeToolCall, usage
from milk_tui.testing.hostile_text import PAYLOAD, payload_for, raw_controls
from milk_tui.testing.mcp_peers import START_S, _env

pytestmark = pytest.mark.real_peer

ARG = payload_for("argv")
SHOWN = (inert("evil\x1b]0;pwned\x07"), inert("\u2069[bold]x[/bold]end"), "\\u2069")
"""The payload's start or end as a surface shows it (inert, or as a JSON escape): proof
the payload got there at all (a dead server's error keeps its stderr's tail)."""
AGENT = "llama" + ARG
HOSTILE = "hostile"
NAMED = "evil" + ARG
"""An MCP server whose configured name is the payload."""


def leaves(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every command line a parser knows, as (words, parser): each subcommand down to the
    leaves, the ones with an optional subcommand also on their own."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
        return
    if path and not subs[0].required:
        yield path, parser
    for name, sub in subs[0].choices.items():
        yield from leaves(sub, (*path, name))


def positionals(parser: argparse.ArgumentParser) -> list[str]:
    """One payload per positional argument (none for an optional subcommand's parser)."""
    return [
        ARG
        for a in parser._actions
        if not a.option_strings and not isinstance(a, argparse._SubParsersAction)
    ]


def has_json(parser: argparse.ArgumentParser) -> bool:
    return any("--json" in a.option_strings for a in parser._actions)


def _mcp(name: str, mode: str) -> dict[str, object]:
    return {
        "name": name,
        "command": sys.executable,
        "args": ["-m", "milk_tui.testing.mcp_payload_server", mode],
        "env": _env(),
        "connect_timeout": START_S,
    }


def _config(home: Path, url: str) -> Path:
    path = home / "config.json"
    agent = {"provider": "local", "url": url, "model": "m" + ARG}
    path.write_text(
        json.dumps(
            {
                "agent": AGENT,
                "escalation_agent": "big",
                "agents": [{"name": AGENT, **agent}, {"name": "big", **agent}],
                "mcp_servers": [_mcp(HOSTILE, "serve"), _mcp(NAMED, "serve"), _mcp("dead", "die")],
            }
        )
    )
    return path


class Walk:
    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        self.cwd, self.env = cwd, env
        self.failures: list[str] = []
        self.runs = 0

    def __call__(self, *argv: str, shows: bool = False) -> subprocess.CompletedProcess[bytes]:
        """Run ``milk-tui argv`` and record what went wrong: a raw control in stdout or
        stderr, a traceback, or (``shows``) no sign of the payload in the output."""
        r = subprocess.run(
            [*MILK_COMMAND, *argv], cwd=self.cwd, env=self.env, capture_output=True, timeout=120
        )
        self.runs += 1
        words = " ".join(a[:12] for a in argv)
        for stream, data in (("stdout", r.stdout), ("stderr", r.stderr)):
            found = raw_controls(data)
            if found:
                self.failures.append(f"{words}: {stream} holds raw controls: {found[:3]}")
        text = (r.stdout + r.stderr).decode("utf-8", "replace")
        if "Traceback" in text:
            self.failures.append(f"{words}: a traceback: {text[-600:]}")
        if shows and not any(mark in text for mark in SHOWN):
            self.failures.append(f"{words}: the payload is not in the output: {text[:400]}")
        return r


LONG_RUNS = {("eval", "run")}
"""Leaves the walk leaves out: ``eval run`` runs every built-in scenario through both agents
(tests/eval covers its output, its hostile turn text included)."""


@pytest.mark.timeout(900)  # some forty runs of the CLI, a third of them starting MCP servers
def test_every_command_writes_outside_text_inert(tmp_path: Path, milk_home: Path) -> None:
    project = tmp_path / payload_for("filename")
    project.mkdir()
    attached = project / (payload_for("filename")[:80] + ".txt")
    attached.write_text("notes\n")
    with FakeOpenAIServer() as srv:
        call = FakeToolCall("bash", json.dumps({"command": "echo " + PAYLOAD}))
        srv.enqueue(FakeReply(tool_calls=[call], model=PAYLOAD))
        srv.default_reply = FakeReply(
            text=["Answer ", PAYLOAD[:40], PAYLOAD[40:]], model=PAYLOAD, usage=usage(9, 9)
        )
        config = _config(milk_home, srv.url)
        env = {**os.environ, "MILK_HOME": str(milk_home), "MILK_CONFIG": str(config)}
        walk = Walk(project, env)

        # What puts the payload into storage: a turn (reply, session title, a refused tool
        # call, an attached file), a fact, a grant.
        turn = walk("-p", "hi " + ARG, "--session", ARG, "--attach", str(attached), shows=True)
        assert turn.returncode == 0, turn.stderr.decode(errors="replace")
        walk("-p", "again", "--session", ARG, "--output-format", "stream-json", shows=True)
        assert walk("memory", "add", "fact " + ARG, "--scope", "global").returncode == 0
        walk("permissions", "grant", ARG)

        # The commands that show stored or served text, pointed at it.
        for argv in (
            ["mcp", "list"],
            ["mcp", "list", "--json"],
            ["mcp", "tools", HOSTILE],
            ["mcp", "tools", NAMED],
            ["mcp", "tools", "dead"],
            ["mcp", "auth", "dead"],
            ["mcp", "auth", HOSTILE],
            ["mcp", "tools", "nosuch"],  # the error lists every server's name
            ["sessions", "list"],
            ["sessions", "show", ARG],
            ["sessions", "show", ARG, "--json"],
            ["memory", "list"],
            ["memory", "list", "--json"],
            ["permissions", "list"],
            ["usage", "--all"],
            ["server", "status"],
        ):
            walk(*argv, shows=argv[-1] not in ("status", HOSTILE))
        # Then every command the parser knows, with the payload in every positional, and --json
        # (last: `memory forget PAYLOAD` forgets the fact).
        walked = list(leaves(build_parser()))
        assert len(walked) >= 15  # the walk found the subcommands
        for words, parser in walked:
            if tuple(words) in LONG_RUNS:
                continue
            walk(*words, *positionals(parser))
            if has_json(parser):
                walk(*words, *positionals(parser), "--json")

        # The top level: a word that is not a command, an unknown agent.
        walk(ARG, shows=True)
        walk("--agent", ARG, "-p", "x", shows=True)
        walk("-p", "x", "--output-format", ARG, shows=True)
    assert not walk.failures, "\n".join(walk.failures)
