"""Crash safety and concurrency of the real print-mode process against a streaming server.

kill -9 at points the test picks — the turn started and nothing answered yet, some text of
the reply streamed (the server holds the rest), the turn reported complete: the database
must open every time, pass SQLite's integrity check and hold exactly the turns committed
before the kill (turns are committed as whole user+assistant pairs, never half).  The
child's own stream-json output says when it reached the point: no kill depends on how fast
a process starts or a reply streams.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from milk_tui.storage.db import Database
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.testing.waits import wait_for

KILLS = 12


def _config(home: Path, url: str) -> None:
    (home / "config.toml").write_text(
        f"""agent = "fake"
escalation_agent = "demo"
[[agents]]
name = "fake"
provider = "local"
url = "{url}"
model = "fake-model"
[[agents]]
name = "demo"
provider = "demo"
"""
    )


def _run(cwd: Path, prompt: str) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "milk_tui.cli",
            "-p",
            prompt,
            "--primary",
            "--output-format",
            "stream-json",
        ],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=os.environ.copy(),
    )


def _turns(db_path: Path) -> int:
    """Open the way the app does (a kill before the first commit leaves an empty file)."""
    db = Database(db_path)
    try:
        assert db.query("PRAGMA integrity_check")[0][0] == "ok"
        return db.query("SELECT COUNT(*) FROM turns")[0][0]
    finally:
        db.close()


def _read_until(proc: subprocess.Popen, seen: Callable[[list[bytes]], bool]) -> list[bytes]:
    """The child's stream-json lines up to the first point where ``seen(lines)`` holds."""
    assert proc.stdout is not None
    lines: list[bytes] = []
    while not seen(lines):
        line = proc.stdout.readline()
        assert line, f"the child ended before the kill point: {b''.join(lines)[-2000:]!r}"
        lines.append(line)
    return lines


def _count(lines: list[bytes], kind: str) -> int:
    return sum(f'"type":"{kind}"'.encode() in line for line in lines)


@pytest.mark.timeout(180)
def test_kill_9_while_streaming_never_loses_a_committed_turn(milk_home: Path, tmp_path: Path):
    rng = random.Random(1234)
    work = tmp_path / "proj"
    work.mkdir()
    text = ["tok "] * 30
    with FakeOpenAIServer() as srv:
        _config(milk_home, srv.url)
        on_disk = 0
        for i in range(KILLS):
            point = ("started", "streaming", "completed")[i % 3]
            held = threading.Event()  # set only after the kill: the reply never ends first
            shown = rng.randint(1, len(text) - 1)  # text chunks sent before the hold
            hold = None if point == "completed" else held
            srv.enqueue(
                FakeReply(text=text, hold=hold, hold_after=1 + shown * (point != "started"))
            )
            asked = len(srv.chat_requests)
            proc = _run(work, f"question number {i} for the crash test")
            if point == "started":  # the request is out; the server holds its answer
                _read_until(proc, lambda lines: _count(lines, "turn_started") == 1)
                wait_for(lambda n=asked: len(srv.chat_requests) > n, what=f"kill {i}'s request")
            elif point == "streaming":
                # some text arrived; the server holds the rest: the turn is mid-stream
                _read_until(proc, lambda lines: _count(lines, "text_delta") >= 1)
            else:  # turn_completed is published only after the commit: the turn is durable
                _read_until(proc, lambda lines: _count(lines, "turn_completed") == 1)
            proc.send_signal(signal.SIGKILL)
            proc.communicate()
            held.set()
            assert len(srv.chat_requests) == asked + 1  # its own reply, none left queued
            n = _turns(milk_home / "milk.db")
            assert n % 2 == 0, f"kill {i} ({point}): half a turn on disk ({n} rows)"
            want = on_disk + 2 if point == "completed" else on_disk
            assert n == want, f"kill {i} ({point}, {shown} chunks): {n} rows, not {want}"
            on_disk = n
        proc = _run(work, "after all the kills")
        assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
        assert _turns(milk_home / "milk.db") == on_disk + 2


@pytest.mark.timeout(120)
def test_two_processes_in_one_folder_do_not_lose_turns(milk_home: Path, tmp_path: Path):
    work = tmp_path / "proj"
    work.mkdir()
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["x "] * 20, delay=0.01)
        _config(milk_home, srv.url)
        procs = [_run(work, f"parallel question {i}") for i in range(4)]
        for p in procs:
            assert p.wait(timeout=60) == 0, p.stderr.read() if p.stderr else ""
    assert _turns(milk_home / "milk.db") == 8


def test_a_file_that_is_not_a_database_fails_clearly_and_leaves_no_open_connection(
    tmp_path: Path, monkeypatch
) -> None:  # noqa: ANN001
    import pytest

    from milk_tui.storage import db as dbmod

    bad = tmp_path / "milk.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    made: list = []
    real_connect = dbmod.sqlite3.connect

    def connect(*a, **kw):  # noqa: ANN002, ANN003, ANN202
        made.append(real_connect(*a, **kw))
        return made[-1]

    monkeypatch.setattr(dbmod.sqlite3, "connect", connect)
    with pytest.raises(dbmod.StorageError, match=str(bad)):
        dbmod.Database(bad)
    assert len(made) == 1
    with pytest.raises(dbmod.sqlite3.ProgrammingError):  # closed, not leaked
        made[0].execute("SELECT 1")
