"""``--jobs 2`` runs scenarios at the same time; Ctrl+C stops a run cleanly: exit 130,
``run.json`` marked interrupted, finished turns kept, no child process left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from eval.rig import EVAL, config_text, env_with, run_eval, turns, write
from milk_tui.eval import records as rec
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.testing.waits import wait_for

TWO = """
scenarios:
  - {name: a-first, prompt: hello one, route: primary}
  - {name: b-second, prompt: hello two, route: primary}
"""


@pytest.fixture
def llama(tmp_path: Path) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["(unscripted)"])
        (tmp_path / "config.toml").write_text(config_text(srv.url))
        yield srv


def test_two_jobs_run_two_scenarios_at_once(llama: FakeOpenAIServer, tmp_path: Path) -> None:
    """Each reply is held until both requests are in: one job at a time would never get
    there (the held first turn blocks the second) and the run would fail its deadline."""
    held = [threading.Event(), threading.Event()]
    llama.enqueue(*(FakeReply(text=["one ", "done"], hold=h) for h in held))

    def release() -> None:
        wait_for(lambda: len(llama.chat_requests) >= 2, 120, what="both turns at the fake at once")
        for h in held:
            h.set()

    releaser = threading.Thread(target=release, daemon=True)
    releaser.start()
    folder = write(tmp_path / "sc", "two.yaml", TWO)
    r = run_eval("run", "--scenarios", str(folder), "--modes", "primary", "--jobs", "2",
                 "--results", str(tmp_path / "res"), "--config", str(tmp_path / "config.toml"),
                 cwd=tmp_path, env=env_with(MILK_HOME=tmp_path / "home"), timeout=240)  # fmt: skip
    for h in held:
        h.set()
    assert r.returncode == 0, r.stderr
    got = turns(tmp_path / "res")
    assert {k: t.text for k, t in got.items()} == {
        ("a-first", "primary", 0): "one done", ("b-second", "primary", 0): "one done"}  # fmt: skip


def _children_in(tmp: Path) -> list[int]:
    """Processes whose working folder is under ``tmp`` (where the eval's runs are)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{pid}/cwd").startswith(str(tmp)):
                found.append(int(pid))
        except OSError:
            continue
    return found


def test_ctrl_c_stops_the_run_and_keeps_what_finished(
    llama: FakeOpenAIServer, tmp_path: Path
) -> None:
    never = threading.Event()
    llama.enqueue(FakeReply(text=["first answer"]), FakeReply(text=["stuck "], hold=never))
    folder = write(tmp_path / "sc", "two.yaml", TWO)
    results, tmp = tmp_path / "res", tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen(
        [
            *EVAL,
            "run",
            "--scenarios",
            str(folder),
            "--modes",
            "primary",
            "--results",
            str(results),
            "--config",
            str(tmp_path / "config.toml"),
        ],  # fmt: skip
        cwd=tmp_path,
        env=env_with(MILK_HOME=tmp_path / "home", TMPDIR=tmp),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        wait_for(lambda: len(llama.chat_requests) >= 2, 120, what="the second turn at the fake")
        assert _children_in(tmp), "the second turn's milk-tui is running"
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl+C in a terminal does
        _, err = proc.communicate(timeout=60)
    finally:
        never.set()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "stopped; the finished turns are in" in err and "Traceback" not in err
    info = rec.read_run(results)
    assert info.interrupted is True and info.finished > 0
    got = turns(results)
    assert (
        list(got) == [("a-first", "primary", 0)]
        and got["a-first", "primary", 0].text == "first answer"
    )
    assert _children_in(tmp) == []
    assert list(tmp.iterdir()) == []  # the runs' folders are removed too
