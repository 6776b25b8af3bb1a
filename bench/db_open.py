"""Opening the database with ``PRAGMA quick_check`` vs without, on a 10,000-turn database.

Target: the check adds ≤ 15 ms at open (``OPEN_BUDGET_S`` and ``CHECK_BUDGET_S`` in
milk_tui/storage/integrity.py stop it there on a larger file).  Baseline in the same run: ``Database(path)`` with the check
switched off; both alternate on the same warm file.  Also printed: the check alone through a
bare sqlite3 connection, and the file size.  Run: ``python bench/db_open.py`` (``--quick``).
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import milk_tui.memory.store  # noqa: E402, F401  (the percept tables, as the app opens them)
from milk_tui.model.session import Turn  # noqa: E402
from milk_tui.storage.db import Database  # noqa: E402
from milk_tui.storage.sessions import SessionStore  # noqa: E402

TURNS = 10_000


def build(path: Path) -> None:
    db = Database(path)
    store = SessionStore(db)
    for _ in range(TURNS // 500):  # 20 sessions of 500 turns, ~1 KB each
        s = store.create("/bench")
        batch = [
            Turn("user" if i % 2 == 0 else "assistant", f"turn {i} " + "lorem ipsum dolor " * 55)
            for i in range(500)
        ]
        s.history.extend(batch)
        store.commit_turns(s, batch)
    db.close()


def open_ms(path: Path, check: bool) -> float:
    real = Database._quick_check
    if not check:
        Database._quick_check = lambda self: None  # type: ignore[method-assign]  # baseline
    try:
        t0 = time.perf_counter()
        Database(path).close()
        return (time.perf_counter() - t0) * 1000
    finally:
        Database._quick_check = real  # type: ignore[method-assign]  # put back


def bare_check_ms(path: Path) -> float:
    con = sqlite3.connect(path)
    t0 = time.perf_counter()
    con.execute("PRAGMA quick_check").fetchall()
    ms = (time.perf_counter() - t0) * 1000
    con.close()
    return ms


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    rounds = 5 if args.quick else 25
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "milk.db"
        build(path)
        with_check, without, bare = [], [], []
        for _ in range(rounds):
            with_check.append(open_ms(path, True))
            without.append(open_ms(path, False))
            bare.append(bare_check_ms(path))
        w, wo = statistics.median(with_check), statistics.median(without)
        print(f"database: {TURNS} turns, {path.stat().st_size / 1e6:.1f} MB")
        print(f"open with quick_check:    {w:7.2f} ms (median of {rounds})")
        print(f"open without (baseline):  {wo:7.2f} ms")
        print(f"added by the check:       {w - wo:7.2f} ms (target <= 100 ms)")
        print(f"quick_check alone, bare:  {statistics.median(bare):7.2f} ms")


if __name__ == "__main__":
    main()
