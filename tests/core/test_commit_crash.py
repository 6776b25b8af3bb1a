"""kill -9 DURING the commit of a turn with thousands of facts: the database opens, passes
SQLite's check, and holds each turn with all of its facts or neither."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from milk_tui.storage.db import Database

FACTS = 5000
KILLS = 6
CHILD = """
import sys
from milk_tui.engine.bus import EventBus
from milk_tui.engine.turn_commit import save_turn
from milk_tui.memory.service import MemoryService
from milk_tui.memory.store import PerceptStore
from milk_tui.model.session import Turn
from milk_tui.storage.db import Database
from milk_tui.storage.sessions import SessionStore

db = Database(sys.argv[1])
store, mem = SessionStore(db), MemoryService(PerceptStore(db), EventBus())
s = store.resume("/crash")
n, first = int(sys.argv[2]), int(sys.argv[3])
for k in range(first, first + 1000):
    turns = [Turn("user", f"turn {k}"), Turn("assistant", f"answer {k}")]
    s.history.extend(turns)
    at = len(s.history) - 1
    facts = [mem.agent_fact(f"t{k}n{i}", "primary", s.id, at, "p", "e") for i in range(n)]
    print(f"commit {k}", flush=True)
    save_turn(store, mem, s, turns, [], facts)
    print(f"done {k}", flush=True)
"""


def _check(path: Path) -> tuple[int, int]:
    """(turns, facts) on disk; asserts every stored turn has exactly all of its facts."""
    db = Database(path)
    try:
        assert db.query("PRAGMA integrity_check")[0][0] == "ok"
        users = [r[0] for r in db.query("SELECT content FROM turns WHERE role = 'user'")]
        assert db.query("SELECT COUNT(*) FROM turns")[0][0] == 2 * len(users)
        facts = db.query("SELECT COUNT(*) FROM percepts")[0][0]
        for u in users:
            k = u.split()[1]
            got = db.query(
                "SELECT COUNT(*) FROM percepts WHERE substr(content, 1, ?) = ?",
                (len(k) + 2, f"t{k}n"),
            )[0][0]
            assert got == FACTS, f"turn {k}: {got} of {FACTS} facts"
        assert facts == FACTS * len(users), f"{facts} facts for {len(users)} turns"
        return len(users), facts
    finally:
        db.close()


@pytest.mark.timeout(300)
def test_kill_9_during_the_commit_keeps_turn_and_facts_all_or_nothing(tmp_path: Path) -> None:
    rng = random.Random(4321)
    path = tmp_path / "milk.db"
    turns_on_disk, next_k, mid_commit = 0, 0, 0
    for kill in range(KILLS):
        proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(path), str(FACTS), str(next_k)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("commit")
        t0 = time.perf_counter()
        assert proc.stdout.readline().startswith("done"), "the first commit must finish"
        took = time.perf_counter() - t0
        assert proc.stdout.readline().startswith("commit")
        time.sleep(rng.uniform(0, took))  # somewhere inside the second commit, usually
        proc.send_signal(signal.SIGKILL)
        rest = proc.stdout.read()
        proc.wait()
        proc.stdout.close()
        n, _ = _check(path)
        assert n in (turns_on_disk + 1, turns_on_disk + 2), f"kill {kill}: {n} turns"
        mid_commit += n == turns_on_disk + 1 and "done" not in rest
        turns_on_disk, next_k = n, next_k + 2
    assert mid_commit, "some kills should land inside a commit"
