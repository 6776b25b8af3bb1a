"""The command line as a user runs it: real subprocesses, real database."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import threading
from pathlib import Path

from milk_tui.model.events import parse_event
from milk_tui.testing.cli_run import MILK_COMMAND
from milk_tui.testing.cli_run import run_milk as milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply

GO_SESSION_KEYS = {
    "id",
    "name",
    "cwd",
    "state",
    "history",
    "current_need",
    "current_need_set_at",
    "claude_session_id",
    "escalation_brief",
    "last_local_summary",
    "last_claude_summary",
    "tokens",
}


def test_print_mode_demo_streams_answer_and_exits_zero(tmp_path: Path):
    r = milk("-p", "what is a monad?", "--demo", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "monad" in r.stdout and "<milk:" not in r.stdout


def test_stream_json_prints_every_bus_event(tmp_path: Path):
    r = milk(
        "-p",
        "please refactor the architecture",
        "--demo",
        "--output-format",
        "stream-json",
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    events = [parse_event(line) for line in r.stdout.splitlines()]
    types = [e.type for e in events]
    for t in (
        "turn_started",
        "route_decided",
        "text_delta",
        "need_changed",
        "escalation_started",
        "escalation_finished",
        "usage",
        "turn_completed",
    ):
        assert t in types, t
    started = next(e for e in events if e.type == "escalation_started")
    assert started.mode == "first" and started.context_text
    assert not any("<milk:" in e.text for e in events if e.type == "text_delta")


def test_sessions_show_json_uses_go_keys(tmp_path: Path):
    assert milk("-p", "remember that I prefer tabs", "--demo", cwd=tmp_path).returncode == 0
    listing = json.loads(milk("sessions", "list", "--json", cwd=tmp_path).stdout)
    assert len(listing) == 1 and listing[0]["turns"] == 2
    shown = json.loads(milk("sessions", "show", listing[0]["id"], "--json", cwd=tmp_path).stdout)
    assert GO_SESSION_KEYS <= set(shown)
    assert [h["role"] for h in shown["history"]] == ["user", "assistant"]
    assert shown["history"][0]["agent"] == "primary" and shown["state"] == "ROUTING"


def test_bad_config_names_file_and_key(tmp_path: Path, milk_home: Path):
    cfg = milk_home / "config.toml"
    cfg.write_text('returning_fresh_start_local_turns = "soon"\n')
    r = milk("--demo", "-p", "hi there", cwd=tmp_path)
    assert r.returncode == 0  # one warning, the default is used (docs/adr/0021-…)
    line = r.stderr.strip().splitlines()[0]
    assert str(cfg) in line and "returning_fresh_start_local_turns" in line and "integer" in line
    cfg.write_text("agent = [unclosed\n")
    r = milk("-p", "hi there", cwd=tmp_path)
    assert r.returncode == 2 and "invalid TOML" in r.stderr and str(cfg) in r.stderr


def test_go_milk_config_json_loads_unchanged(tmp_path: Path, milk_home: Path):
    cfg = milk_home / "config.json"
    cfg.write_text(
        json.dumps(
            {
                "agent": "demo",
                "escalation_agent": "demo2",
                "default_route": "local",
                "rules": {"escalate_above_tokens": 2000, "local_verbs": ["list"]},
                "otel": {"enabled": True, "log_level": "INFO"},
                "colorization": "balanced",
                "mcp_servers": [],
                "agents": [
                    {
                        "name": "demo",
                        "provider": "demo",
                        "system_prompt_tier": "standard",
                        "limits": {"max_tool_iterations": 5},
                    },
                    {"name": "demo2", "provider": "demo", "extra_args": ["--x"]},
                ],
                "some_future_key": 1,
            }
        )
    )
    r = milk("-p", "what is a monad?", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "unknown key 'some_future_key'" in r.stderr and "default_route" not in r.stderr


def test_primary_down_degrades_to_escalation_with_a_notice(tmp_path: Path, milk_home: Path):
    (milk_home / "config.toml").write_text(
        'agent = "llama"\nescalation_agent = "demo"\n[[agents]]\nname = "llama"\nprovider = "local"\n'
        'url = "http://127.0.0.1:9"\n[[agents]]\nname = "demo"\nprovider = "demo"\n'
    )
    r = milk("-p", "hello there friend", cwd=tmp_path)
    assert r.returncode == 0 and "llama" in r.stderr and "demo" in r.stderr


def test_both_agents_down_exits_nonzero_with_one_line_reason(tmp_path: Path, milk_home: Path):
    (milk_home / "config.toml").write_text(
        'agent = "llama"\nescalation_agent = "deep"\n'
        '[[agents]]\nname = "llama"\nprovider = "local"\nurl = "http://127.0.0.1:9"\n'
        '[[agents]]\nname = "deep"\nprovider = "local"\nurl = "http://127.0.0.1:7"\n'
    )
    r = milk("-p", "hello there friend", cwd=tmp_path)
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("milk-tui: ") and "llama" in last and "deep" in last


def test_sigint_cancels_the_turn_and_records_nothing(tmp_path: Path, milk_home: Path):
    held = threading.Event()  # the turn runs until SIGINT: the server holds the rest
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["slow "] * 200, hold=held, hold_after=2)
        (milk_home / "config.toml").write_text(
            f'agent = "llama"\nescalation_agent = "demo"\n[[agents]]\nname = "llama"\n'
            f'provider = "local"\nurl = "{srv.url}"\n[[agents]]\nname = "demo"\nprovider = "demo"\n'
        )
        p = subprocess.Popen(
            [*MILK_COMMAND, "-p", "stream slowly please", "--primary"],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
        )
        assert p.stdout is not None
        assert p.stdout.read(5) == "slow "  # the stream has started, and is held
        p.send_signal(signal.SIGINT)
        rc = p.wait(timeout=30)
        err = p.stderr.read() if p.stderr else ""
    assert rc == 130 and "interrupted" in err
    con = sqlite3.connect(milk_home / "milk.db")
    assert con.execute("SELECT COUNT(*) FROM turns").fetchone()[0] == 0


def test_print_mode_and_subcommands_release_agents_and_database(tmp_path: Path, monkeypatch):
    """In-process: every database the CLI opens is closed, and -p closes its agents."""
    from milk_tui import cli
    from milk_tui.agents.demo import DemoAgent
    from milk_tui.storage.db import Database

    opened: list[Database] = []
    closed: list[Database] = []
    agents_closed: list[str] = []
    real_init, real_close = Database.__init__, Database.close

    def track_init(self, path):  # noqa: ANN001, ANN202
        real_init(self, path)
        opened.append(self)

    def track_close(self):  # noqa: ANN001, ANN202
        closed.append(self)
        real_close(self)

    async def track_aclose(self):  # noqa: ANN001, ANN202
        agents_closed.append(self.name)

    monkeypatch.setattr(Database, "__init__", track_init)
    monkeypatch.setattr(Database, "close", track_close)
    monkeypatch.setattr(DemoAgent, "aclose", track_aclose, raising=False)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["-p", "what is a monad?", "--demo"]) == 0
    assert sorted(agents_closed) == ["demo-claude", "demo-local"]
    assert cli.main(["sessions", "list", "--json"]) == 0
    assert cli.main(["memory", "list", "--json"]) == 0
    assert len(opened) == 3 and all(db in closed for db in opened)
