"""Resume a 10,000-turn session and append turns at 10 vs 10,000 turns of history.

Targets (docs/ARCHITECTURE.md, "Performance budgets"): resume ≤ 150 ms; appending is O(1) in history length (ratio ≈ 1).
Baseline in the same run: a bare ``SELECT`` of the same rows with sqlite3, so the figure
says how much our loading adds on top of the database itself.
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

from milk_tui.model.session import Turn  # noqa: E402
from milk_tui.storage.db import Database  # noqa: E402
from milk_tui.storage.sessions import SessionStore  # noqa: E402


def build(store: SessionStore, n_turns: int) -> str:
    s = store.create("/bench")
    batch = []
    for i in range(n_turns):
        role = "user" if i % 2 == 0 else "assistant"
        batch.append(
            Turn(
                role,
                f"turn {i} " + "lorem ipsum dolor sit amet " * 8,
                agent="primary",
                agent_name="llama",
            )
        )
    s.history.extend(batch)
    store.commit_turns(s, batch)
    return s.id


def median_ms(fn, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    repeat = 5 if args.quick else 15
    with tempfile.TemporaryDirectory() as tmp:
        db = Database(Path(tmp) / "milk.db")
        store = SessionStore(db)
        big = build(store, 10_000)
        small = build(store, 10)
        resume = median_ms(lambda: store.load(big), repeat)
        con = sqlite3.connect(Path(tmp) / "milk.db")
        bare = median_ms(
            lambda: con.execute(
                "SELECT * FROM turns WHERE session_id = ? ORDER BY id", (big,)
            ).fetchall(),
            repeat,
        )

        def appender(sid: str):
            sess = store.load(sid)

            def go() -> None:
                t = Turn("user", "one more question", agent="primary", agent_name="llama")
                sess.history.append(t)
                store.commit_turns(sess, [t])

            return go

        app_small = median_ms(appender(small), repeat * 10)
        app_big = median_ms(appender(big), repeat * 10)
    print(
        f"resume 10,000 turns: {resume:.1f} ms median (target ≤ 150 ms); bare SELECT {bare:.1f} ms; "
        f"ratio {resume / bare:.2f}×"
    )
    print(
        f"append one turn: {app_small:.3f} ms at 10 turns, {app_big:.3f} ms at 10,000 turns; "
        f"ratio {app_big / app_small:.2f}× (target ≈ 1, flat)"
    )


if __name__ == "__main__":
    main()
