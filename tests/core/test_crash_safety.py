"""Crash safety and concurrency of the real print-mode process against a streaming server.

kill -9 at random points while a turn streams: the database must open every time, pass
SQLite's integrity check and hold exactly the turns committed before the kill (turns are
committed as whole user+assistant pairs, never half).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from milk_tui.storage.db import Database
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply

KILLS = 22


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


@pytest.mark.timeout(180)
def test_kill_9_while_streaming_never_loses_a_committed_turn(milk_home: Path, tmp_path: Path):
    rng = random.Random(1234)
    work = tmp_path / "proj"
    work.mkdir()
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["tok "] * 30, delay=0.02)
        _config(milk_home, srv.url)
        on_disk, completed, lost_mid_stream = 0, 0, 0
        for i in range(KILLS):
            proc = _run(work, f"question number {i} for the crash test")
            time.sleep(rng.uniform(0.15, 1.6))
            proc.send_signal(signal.SIGKILL)
            out, _ = proc.communicate()
            # turn_completed is published only after the commit: it proves the turn is durable
            saw_completed = b'"type":"turn_completed"' in out
            n = _turns(milk_home / "milk.db")
            assert n % 2 == 0, f"kill {i}: half a turn on disk ({n} rows)"
            assert on_disk + (2 if saw_completed else 0) <= n <= on_disk + 2, f"kill {i}: {n} rows"
            completed += saw_completed
            lost_mid_stream += n == on_disk
            on_disk = n
        assert completed and lost_mid_stream, "the random kill points should hit both phases"
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
