"""kill -9 DURING the commit of a turn with thousands of facts (at a fact the test picks): the database opens, passes
SQLite's check, and holds each turn with all of its facts or neither."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
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
n, first, stop_at = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])


def commit(k):
    turns = [Turn("user", f"turn {k}"), Turn("assistant", f"answer {k}")]
    s.history.extend(turns)
    at = len(s.history) - 1
    facts = [mem.agent_fact(f"t{k}n{i}", "primary", s.id, at, "p", "e") for i in range(n)]
    save_turn(store, mem, s, turns, [], facts)


commit(first)
print(f"done {first}", flush=True)
record_in, written = mem._record_in, [0]


def stop_inside(conn, args):
    out = record_in(conn, args)
    written[0] += 1
    if written[0] == stop_at:  # the point the test chose, inside the open transaction
        print(f"inside {first + 1} after fact {stop_at}", flush=True)
        sys.stdin.readline()  # the test never answers: it kills this process here
    return out


mem._record_in = stop_inside
commit(first + 1)
print(f"done {first + 1}", flush=True)
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
    """Each child commits one turn, then stops inside the next commit's transaction after a
    fact the test picks (the last one: just before COMMIT) and is killed there."""
    rng = random.Random(4321)
    path = tmp_path / "milk.db"
    turns_on_disk, next_k = 0, 0
    for kill in range(KILLS):
        stop_at = FACTS if kill == 0 else rng.randint(1, FACTS)
        proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(path), str(FACTS), str(next_k), str(stop_at)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None and proc.stdin is not None
        assert proc.stdout.readline() == f"done {next_k}\n", "the first commit must finish"
        assert proc.stdout.readline() == f"inside {next_k + 1} after fact {stop_at}\n"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdin.close()
        proc.stdout.close()
        n, _ = _check(path)
        assert n == turns_on_disk + 1, f"kill {kill} after fact {stop_at}: {n} turns"
        turns_on_disk, next_k = n, next_k + 2
