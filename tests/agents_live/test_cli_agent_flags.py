"""``--agent`` / ``--escalation-agent`` through the real command line (a subprocess) against
fake OpenAI servers, over a TOML config and a Go milk ``config.json``."""

from __future__ import annotations

import json
import os
from pathlib import Path

from milk_tui.testing.cli_run import run_milk
from milk_tui.testing.fake_openai import FakeOpenAIServer

Servers = tuple[FakeOpenAIServer, FakeOpenAIServer]


def _env(home: Path) -> dict[str, str]:
    env = os.environ.copy()
    env["MILK_HOME"] = str(home)
    env.pop("MILK_CONFIG", None)
    return env


def test_print_mode_runs_the_named_agents(
    config_file: Path, servers: Servers, milk_home: Path, tmp_path: Path
) -> None:
    env = _env(milk_home)
    r = run_milk("-p", "hi", "--agent", "two", cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "from two"
    r = run_milk("-p", "hi", "--escalate", "--escalation-agent", "one", cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "from one"
    assert len(servers[0].chat_requests) == 1 and len(servers[1].chat_requests) == 1
    r = run_milk("-p", "hi", cwd=tmp_path, env=env)  # for one run only: the file is unchanged
    assert r.stdout.strip() == "from one"


def test_unknown_name_is_one_line_and_exit_2(
    config_file: Path, milk_home: Path, tmp_path: Path
) -> None:
    env = _env(milk_home)
    for args in (["-p", "hi", "--agent", "nope"], ["--escalation-agent", "nope"]):
        r = run_milk(*args, cwd=tmp_path, env=env)  # the second one would open the TUI
        assert r.returncode == 2
        flag = args[-2]
        assert r.stderr.splitlines() == [
            f"milk-tui: config error: {flag}: no agent named 'nope' "
            "(defined: one, two, demo-big, claude)"
        ]
        assert r.stdout == ""


def test_a_go_config_json_and_the_config_flag(
    servers: Servers, milk_home: Path, tmp_path: Path
) -> None:
    go = tmp_path / "go-config.json"
    go.write_text(
        json.dumps(
            {
                "agent": "a",
                "agents": [
                    {"name": "a", "provider": "local", "url": servers[0].url, "model": "m"},
                    {"name": "b", "provider": "local", "url": servers[1].url, "model": "m"},
                ],
            }
        )
    )
    r = run_milk("--config", str(go), "-p", "hi", "--agent", "B", cwd=tmp_path, env=_env(milk_home))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "from two"


def test_the_tui_on_a_pty_runs_the_named_agents(
    config_file: Path, servers: Servers, milk_home: Path, tmp_path: Path
) -> None:
    from milk_tui.testing.cli_run import MILK_COMMAND
    from milk_tui.testing.pty_run import PtyRun

    env = {**_env(milk_home), "TERM": "xterm-256color"}
    for k in ("NO_COLOR", "FORCE_COLOR", "TEXTUAL"):
        env.pop(k, None)
    argv = [*MILK_COMMAND, "--agent", "two", "--escalation-agent", "demo-big"]
    app = PtyRun(argv, cwd=tmp_path, env=env)
    try:
        app.until(lambda s: "Escalation" in s and "demo-big" in s, "the escalation pane")
        app.send(b"/primary hello")
        app.until(lambda s: "/primary hello" in s, "the typed prompt")
        app.send(b"\r")
        app.until(lambda s: "from two" in s, "the reply of two")
        app.send(b"\x11")  # Ctrl+Q
        code = app.finish()
    finally:
        if app.proc.poll() is None:
            app.proc.kill()
    assert code == 0, app.text()
    assert servers[1].chat_requests and not servers[0].chat_requests
