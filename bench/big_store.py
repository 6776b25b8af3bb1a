"""Make a large milk-tui store: N facts, one long session of T turns, S sessions in all.

    python bench/big_store.py --facts 1000000 --turns 100000 --sessions 1000 OUT_HOME

OUT_HOME becomes a ``MILK_HOME`` (``milk.db`` inside) for the scale benchmarks
(``bench/scale_commands.py``).  Rows are written through the stores' own insert paths
(``PerceptStore.insert``, ``SessionStore.commit_turns``) so indexes, the full-text index and
the term counts are what the app itself would have written, in large transactions.  The
long session is in folder ``/bench/big`` and is the most recently used one there; the
other sessions are spread over 50 folders; one fact in 5,000 belongs to the long session,
the rest are global.  A finished store is reused when its ``big_store.json`` says it has
the same sizes; ``fresh_copy`` gives each benchmark run its own copy (a turn writes).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from milk_tui.memory.store import PerceptStore  # noqa: E402
from milk_tui.model.percept import Percept  # noqa: E402
from milk_tui.model.session import Turn  # noqa: E402
from milk_tui.storage.db import Database  # noqa: E402
from milk_tui.storage.sessions import SessionStore  # noqa: E402

DB_NAME = "milk.db"
"""As ``config.paths.database_file`` names it inside the data dir."""
BIG_CWD = "/bench/big"
WORDS = (
    "alpha beta gamma delta build deploy cache index query router agent token session "
    "config schema migrate python rust golang docker kubernetes postgres sqlite redis "
    "kafka nginx react textual httpx pytest mypy ruff linter budget latency memory "
    "thread async socket stream chunk parser grammar tensor model server client proxy"
).split()


def _sentence(rng: random.Random, i: int) -> str:
    words = rng.choices(WORDS, k=rng.randint(6, 14))
    return f"fact {i}: the {' '.join(words)} (ref {rng.randrange(10**6)})"


def build(home: Path, facts: int, turns: int, sessions: int, quiet: bool = False) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    stamp = home / "big_store.json"
    want = {"facts": facts, "turns": turns, "sessions": sessions, "v": 3}
    if stamp.exists() and json.loads(stamp.read_text()) == want:
        return home
    for old in home.glob(DB_NAME + "*"):
        old.unlink()
    t0 = time.perf_counter()
    db = Database(home / DB_NAME)
    store = SessionStore(db)
    percepts = PerceptStore(db)
    rng = random.Random(7)
    now = time.time()
    for k in range(max(sessions - 1, 0)):  # the others first: the big one is the latest
        s = store.create(f"/bench/folder{k % 50}", name=f"s{k}")
        pair = [
            Turn("user", f"question {k}", agent="", agent_name=""),
            Turn("assistant", f"answer {k}", agent="primary", agent_name="llama"),
        ]
        s.history.extend(pair)
        store.commit_turns(s, pair)
    big = store.create(BIG_CWD, name="big")
    step = 10_000
    for start in range(0, turns, step):
        batch = [
            Turn(
                "user" if i % 2 == 0 else "assistant",
                f"turn {i} " + " ".join(rng.choices(WORDS, k=30)),
                agent="" if i % 2 == 0 else "primary",
                agent_name="" if i % 2 == 0 else "llama",
            )
            for i in range(start, min(start + step, turns))
        ]
        big.history.extend(batch)
        store.commit_turns(big, batch)
        if not quiet:
            print(f"\rturns {min(start + step, turns):,}/{turns:,}", end="", file=sys.stderr)
    for start in range(0, facts, 50_000):
        with db.transaction() as conn:
            for i in range(start, min(start + 50_000, facts)):
                # End-of-session consolidation decays a session's facts at every end (a
                # -p run is one), so a real store's facts are global but for the few
                # recorded in the last sessions.
                scope = "session" if i % 5000 == 0 else "global"
                p = Percept(
                    id=0,
                    content=_sentence(rng, i),
                    producer="primary" if i % 2 else "escalation",
                    scope=scope,
                    session_id="" if scope == "global" else big.id,
                    weight=0.3 + (i % 7) / 10,
                    created_at=now - (facts - i),
                    updated_at=now - (facts - i),
                )
                percepts.insert(conn, p)
        if not quiet:
            print(f"\rfacts {min(start + 50_000, facts):,}/{facts:,}", end="", file=sys.stderr)
    with db.transaction() as conn:
        conn.execute("ANALYZE")
    db.close()
    stamp.write_text(json.dumps(want))
    if not quiet:
        print(f"\rbuilt in {time.perf_counter() - t0:.0f} s{' ' * 20}", file=sys.stderr)
    return home


def fresh_copy(home: Path, into: Path) -> Path:
    """A copy of a built store to run commands on, leaving the cached one untouched."""
    into.mkdir(parents=True, exist_ok=True)
    for f in home.iterdir():
        if f.is_file():
            shutil.copy2(f, into / f.name)
    return into


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("home", type=Path)
    ap.add_argument("--facts", type=int, default=1_000_000)
    ap.add_argument("--turns", type=int, default=100_000)
    ap.add_argument("--sessions", type=int, default=1_000)
    a = ap.parse_args()
    build(a.home, a.facts, a.turns, a.sessions)


if __name__ == "__main__":
    main()
