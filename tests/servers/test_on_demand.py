"""Starting an agent's run_cmd server on demand (engine/server_on_demand.py) with real
processes: the fake OpenAI server as the peer, and bad run_cmds that exit at once, never
get ready, cannot log, or meet a port held by something else."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import stat
from pathlib import Path

import httpx

from milk_tui.agents import local_server as ls
from milk_tui.engine.server_on_demand import LocalServers
from milk_tui.model import events as ev
from milk_tui.testing.waits import until, wait_for
from servers.peers import agent, fake_cmd, free_port, group_gone, port_taken, process_gone


def servers(home: Path) -> tuple[LocalServers, list[ev.BusEvent]]:
    seen: list[ev.BusEvent] = []
    return LocalServers(home, seen.append, tick_s=0.05), seen


def kinds(seen: list[ev.BusEvent]) -> list[str]:
    return [e.type for e in seen if e.type != "server_countdown"]


async def test_starts_the_server_waits_then_stops_it_on_exit(milk_home: Path) -> None:
    port = free_port()
    local, seen = servers(milk_home)
    cfg = agent("fake", port, fake_cmd(port))
    assert await local.ensure(cfg)
    assert kinds(seen) == ["server_starting", "server_ready"]
    r = httpx.get(f"http://127.0.0.1:{port}/v1/models")
    assert r.status_code == 200  # the turn can go on: the server answers
    record = ls.read_record(milk_home, "fake")
    assert record is not None and record.alive()
    d = milk_home / "servers"
    assert stat.S_IMODE(d.stat().st_mode) == 0o700
    assert stat.S_IMODE((d / "fake.log").stat().st_mode) == 0o600
    assert stat.S_IMODE((d / "fake.json").stat().st_mode) == 0o600
    assert "fake OpenAI server on" in (d / "fake.log").read_text()
    # A second ensure finds it up and starts nothing.
    assert await local.ensure(cfg)
    assert kinds(seen) == ["server_starting", "server_ready"]
    await local.aclose()
    assert group_gone(record.pgid)
    assert ls.read_record(milk_home, "fake") is None
    assert [e.type for e in seen][-1] == "server_stopped"


async def test_run_cmd_keep_leaves_it_running(milk_home: Path) -> None:
    port = free_port()
    local, _ = servers(milk_home)
    assert await local.ensure(agent("fake", port, fake_cmd(port), run_cmd_keep=True))
    await local.aclose()
    record = ls.read_record(milk_home, "fake")
    assert record is not None and record.alive() and record.keep
    other, _ = servers(milk_home)  # another process finds it by its record
    assert await other.stop("fake")
    assert group_gone(record.pgid)


async def test_exits_at_once_is_one_line_with_the_code_and_the_last_log_line(
    milk_home: Path,
) -> None:
    local, seen = servers(milk_home)
    cfg = agent(
        "broken", free_port(), "echo loading model >&2; echo 'error: no such file' >&2; exit 3"
    )
    assert not await local.ensure(cfg)
    failed = [e for e in seen if isinstance(e, ev.ServerFailed)]
    assert [f.error for f in failed] == [
        "agent 'broken': run_cmd exited with code 3: error: no such file"
    ]
    assert ls.read_record(milk_home, "broken") is None


async def test_never_ready_is_killed_after_its_timeout(milk_home: Path) -> None:
    local, seen = servers(milk_home)
    pids = milk_home / "pids"
    run_cmd = f"echo $$ > {pids}; sleep 999 & echo $! >> {pids}; echo waiting; wait"
    cfg = agent("sleepy", free_port(), run_cmd, run_cmd_timeout_secs=1)
    assert not await local.ensure(cfg)
    starting = next(e for e in seen if isinstance(e, ev.ServerStarting))
    assert starting.timeout_s == 1
    assert any(isinstance(e, ev.ServerCountdown) and e.remaining_s == 1 for e in seen)
    failed = [e.error for e in seen if isinstance(e, ev.ServerFailed)]
    assert failed == [
        "agent 'sleepy': server not ready after 1 s; its process group was stopped "
        "(last log line: waiting)"
    ]
    assert ls.read_record(milk_home, "sleepy") is None
    log = (milk_home / "servers" / "sleepy.log").read_text()
    assert "waiting" in log
    # the shell and its `sleep` child, which this test started: the whole group is gone
    shell, sleep = (int(line) for line in pids.read_text().split())
    try:
        wait_for(lambda: process_gone(shell) and process_gone(sleep), what="its processes gone")
        wait_for(lambda: group_gone(shell), what="the run_cmd's process group to be gone")
    finally:  # a failure leaves nothing of this test running (only its own pids)
        for pid in (sleep, shell):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


async def test_unwritable_log_dir_is_one_line(milk_home: Path) -> None:
    (milk_home / "servers").write_text("a file where the folder should be")
    local, seen = servers(milk_home)
    marker = milk_home / "ran"
    assert not await local.ensure(agent("smol", free_port(), f"touch {marker}"))
    failed = [e.error for e in seen if isinstance(e, ev.ServerFailed)]
    assert len(failed) == 1
    assert failed[0].startswith(f"agent 'smol': {milk_home / 'servers'}: not a directory")
    assert not marker.exists()


async def test_log_file_that_cannot_be_opened_is_one_line(milk_home: Path) -> None:
    (milk_home / "servers" / "smol.log").mkdir(parents=True)
    local, seen = servers(milk_home)
    assert not await local.ensure(agent("smol", free_port(), "sleep 999"))
    failed = [e.error for e in seen if isinstance(e, ev.ServerFailed)]
    assert failed == [
        f"agent 'smol': cannot open the log {milk_home / 'servers' / 'smol.log'} (Is a directory)"
    ]


async def test_port_taken_by_something_else_starts_nothing(milk_home: Path) -> None:
    local, seen = servers(milk_home)
    marker = milk_home / "ran"
    with port_taken() as port:
        assert not await local.ensure(agent("smol", port, f"touch {marker}"))
    failed = [e.error for e in seen if isinstance(e, ev.ServerFailed)]
    assert failed == [
        f"agent 'smol': 127.0.0.1:{port} is taken by something that is not its server "
        "(no /health or models answer); run_cmd not started"
    ]
    assert not marker.exists()


async def test_a_record_of_another_process_is_never_signalled(milk_home: Path) -> None:
    """A recorded pid whose process started at another time (the pid was reused) is left
    alone: its record is dropped, nothing is signalled."""
    import subprocess

    other = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        ticks = ls.ServerRecord(
            agent="old", pid=other.pid, pgid=other.pid, url="http://127.0.0.1:1", log="",
            run_cmd="", started_at=0, create_time=None,
        )  # fmt: skip
        real = ls._create_time(other.pid)
        assert real is not None
        ticks.create_time = real + 1
        ls.servers_dir(milk_home)
        ticks.save(milk_home)
        local, seen = servers(milk_home)
        assert not await local.stop("old")
        assert other.poll() is None  # still running
        assert ls.read_record(milk_home, "old") is None
        assert seen == []
    finally:
        other.kill()
        other.wait()


def test_probe_paths() -> None:
    assert ls.models_path("/v1/chat/completions") == "/v1/models"
    assert ls.models_path("/chat/completions") == "/models"
    assert ls.models_path("custom") == "/v1/models"
    assert ls.safe_name("../a b/c") == "_a_b_c"


async def test_a_server_that_died_is_started_again(milk_home: Path) -> None:
    port = free_port()
    local, seen = servers(milk_home)
    cfg = agent("fake", port, fake_cmd(port))
    assert await local.ensure(cfg)
    first = ls.read_record(milk_home, "fake")
    assert first is not None
    os.killpg(first.pgid, signal.SIGKILL)
    # until it is a zombie (or gone): only then can it be reaped
    await until(None, lambda: process_gone(first.pid), what="the killed leader to be a zombie")
    # The leader is reaped at once; its killed child leaves the group a moment later.
    for _ in range(500):
        [row] = await local.status([cfg])
        if row.state != "starting":
            break
        await asyncio.sleep(0.01)
    assert (row.state, row.pid) == ("down", 0)  # reaped and forgotten, not "starting"
    assert await local.ensure(cfg)
    second = ls.read_record(milk_home, "fake")
    assert second is not None and second.pid != first.pid
    assert kinds(seen) == ["server_starting", "server_ready"] * 2
    await local.aclose()
    assert group_gone(second.pgid)
