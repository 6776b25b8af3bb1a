"""``milk-tui server …`` and ``-p`` with a run_cmd agent, run as a user runs them: real
subprocesses, a real config file, the fake OpenAI server as the started peer."""

from __future__ import annotations

import json
from pathlib import Path

from milk_tui.testing.cli_run import run_milk
from servers.peers import env_for, fake_cmd, free_port, group_gone, port_taken, write_config


def milk(home: Path, *args: str):  # noqa: ANN201 - a CompletedProcess
    return run_milk(*args, cwd=home, env=env_for(home))


def test_start_keeps_running_after_the_cli_and_stop_from_another_process(milk_home: Path) -> None:
    port = free_port()
    write_config(milk_home, port, fake_cmd(port))
    r = milk(milk_home, "server", "status")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["smol", "down", f"http://127.0.0.1:{port}"]
    r = milk(milk_home, "server", "start", "smol")
    assert r.returncode == 0, r.stderr
    assert "starting the server of 'smol'" in r.stderr
    assert "the server of 'smol' is ready after" in r.stderr
    r = milk(milk_home, "server", "status", "--json")
    [row] = json.loads(r.stdout)
    assert row["state"] == "running" and row["pid"] > 0  # the CLI that started it has exited
    r = milk(milk_home, "server", "start", "smol")
    assert r.stdout == "the server of 'smol' answers already\n"
    r = milk(milk_home, "server", "stop", "smol")
    assert r.returncode == 0, r.stderr
    assert f"stopped the server of 'smol' (pid {row['pid']})" in r.stderr
    assert group_gone(row["pid"])
    assert milk(milk_home, "server", "stop").stdout == "no server is running\n"


def test_print_mode_starts_the_server_answers_and_stops_it(milk_home: Path) -> None:
    port = free_port()
    write_config(milk_home, port, fake_cmd(port))
    r = milk(milk_home, "-p", "hello")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "Hello from the fake.\n"
    assert "milk-tui: starting the server of 'smol'" in r.stderr
    assert "Traceback" not in r.stderr
    log = (milk_home / "servers" / "smol.log").read_text()
    assert "fake OpenAI server on" in log
    assert not (milk_home / "servers" / "smol.json").exists()  # stopped at the end of -p
    status = milk(milk_home, "server", "status").stdout.split()
    assert status[:2] == ["smol", "down"]


def test_print_mode_keeps_a_run_cmd_keep_server(milk_home: Path) -> None:
    port = free_port()
    write_config(milk_home, port, fake_cmd(port), run_cmd_keep=True)
    assert milk(milk_home, "-p", "hello").returncode == 0
    status = milk(milk_home, "server", "status").stdout.split()
    assert status[:2] == ["smol", "running"] and "kept" in status
    assert milk(milk_home, "server", "stop", "smol").returncode == 0


def test_print_mode_run_cmd_that_exits_at_once(milk_home: Path) -> None:
    write_config(milk_home, free_port(), "echo 'model file missing' >&2; exit 7")
    r = milk(milk_home, "-p", "hello")
    assert r.returncode == 1
    assert r.stdout == ""
    assert "milk-tui: agent 'smol': run_cmd exited with code 7: model file missing\n" in r.stderr
    assert "Traceback" not in r.stderr


def test_print_mode_never_ready_is_killed(milk_home: Path) -> None:
    write_config(milk_home, free_port(), "sleep 999", run_cmd_timeout_secs=1)
    r = milk(milk_home, "-p", "hello")
    assert r.returncode == 1
    assert (
        "milk-tui: agent 'smol': server not ready after 1 s; its process group was stopped\n"
        in r.stderr
    )
    assert "Traceback" not in r.stderr


def test_print_mode_port_taken_by_something_else(milk_home: Path) -> None:
    with port_taken() as port:
        write_config(milk_home, port, fake_cmd(port))
        r = milk(milk_home, "-p", "hello")
    assert r.returncode == 1
    assert f"milk-tui: agent 'smol': 127.0.0.1:{port} is taken by something" in r.stderr
    assert "Traceback" not in r.stderr


def test_bad_names_are_one_line(milk_home: Path) -> None:
    write_config(milk_home, free_port(), "true")
    r = milk(milk_home, "server", "start", "nope")
    assert r.returncode == 1
    assert r.stderr == "milk-tui: no agent named 'nope' (agents with a run_cmd: smol)\n"
    r = milk(milk_home, "server", "start", "nobody")
    assert r.stderr == "milk-tui: agent 'nobody' has no run_cmd to start a server with\n"


def test_run_cmd_is_no_longer_reported_as_ignored(milk_home: Path) -> None:
    port = free_port()
    write_config(milk_home, port, fake_cmd(port), run_cmd_timeout_secs=5)
    r = milk(milk_home, "-p", "hello")
    assert r.returncode == 0, r.stderr
    ignored = [ln for ln in r.stderr.splitlines() if "ignored" in ln]
    assert not [ln for ln in ignored if "agents[0].run_cmd" in ln], ignored


def test_print_mode_log_folder_that_cannot_be_made(milk_home: Path) -> None:
    port = free_port()
    write_config(milk_home, port, fake_cmd(port))
    (milk_home / "servers").write_text("not a folder")
    r = milk(milk_home, "-p", "hello")
    assert r.returncode == 1
    assert f"milk-tui: agent 'smol': {milk_home / 'servers'}: not a directory\n" in r.stderr
    assert "Traceback" not in r.stderr
