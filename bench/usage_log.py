"""What the usage log costs: a turn's commit with its usage rows against the same commit
without them, and the time ``/usage`` takes to read the three scopes.

* with the log — ``engine.turn_commit.save_turn``: turns, session row, tokens and the
  turn's usage-log rows (two models: primary and escalation) in one transaction;
* without (baseline, same run) — ``SessionStore.commit_turns`` with the same turns and
  token deltas, no usage row.

Both run on databases already holding a 200-turn session and a usage log of 100,000 rows
(``--quick``: 10,000) across 50 folders, alternating; medians in ms and the ratio
with / without.  Then the reads: per (model, role) totals and the series for the session,
its folder and every folder.  Run: ``python bench/usage_log.py`` (``--quick``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from milk_tui.engine.turn_commit import save_turn  # noqa: E402
from milk_tui.facade.usage import UsageReport  # noqa: E402
from milk_tui.model.session import Session, TokenUsage, Turn  # noqa: E402
from milk_tui.storage.db import Database  # noqa: E402
from milk_tui.storage.sessions import SessionStore  # noqa: E402
from milk_tui.storage.usage_log import DAY_S, append  # noqa: E402

DELTAS = [
    TokenUsage("qwen-coder", "primary", 400, 80, 3000, 0, 0.0),
    TokenUsage("claude-sonnet", "escalation", 300, 900, 2000, 400, 0.02),
]


class Rig:
    def __init__(self, path: Path, log_rows: int) -> None:
        self.db = Database(path)
        self.store = SessionStore(self.db)
        self.s: Session = self.store.create("/bench/folder-0")
        now = time.time()
        with self.db.transaction() as conn:
            for i in range(log_rows // 2):
                append(conn, f"old-{i % 500}", f"/bench/folder-{i % 50}", i, DELTAS,
                       ts=now - (i % 365) * DAY_S)  # fmt: skip
        self.turn(with_log=False, turns=100)

    def turn(self, with_log: bool, turns: int = 1) -> float:
        new = []
        for _ in range(turns):
            new += [Turn("user", "a question " * 20), Turn("assistant", "an answer " * 80)]
        self.s.history.extend(new)
        for u in DELTAS:
            self.s.add_tokens(u.model, u.role, u.prompt, u.completion, u.cache_read,
                              u.cache_creation, u.cost_usd)  # fmt: skip
        t0 = time.perf_counter()
        if with_log:
            save_turn(self.store, None, self.s, new, list(DELTAS), [])
        else:
            self.store.commit_turns(self.s, new, list(DELTAS))
        return (time.perf_counter() - t0) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    log_rows = 10_000 if args.quick else 100_000
    rounds = 40 if args.quick else 300
    with tempfile.TemporaryDirectory() as tmp:
        rigs = {"with log": Rig(Path(tmp) / "a.db", log_rows),
                "without": Rig(Path(tmp) / "b.db", log_rows)}  # fmt: skip
        got: dict[str, list[float]] = {k: [] for k in rigs}
        for _ in range(rounds):
            for name, rig in rigs.items():  # alternating: both see the same load
                got[name].append(rig.turn(with_log=name == "with log"))
        new, old = (statistics.median(got[k]) for k in rigs)
        print(f"commit of one turn, {log_rows:,} log rows on disk, median of {rounds}:")
        print(f"  with the usage rows {new:.3f} ms   without {old:.3f} ms   ratio {new / old:.2f}")
        rig = rigs["with log"]
        report = UsageReport(rig.db, rig.s.cwd, rig.s.id)
        for scope in ("session", "folder", "all"):
            times = []
            for _ in range(5 if args.quick else 15):
                t0 = time.perf_counter()
                report.scope(scope)  # type: ignore[arg-type]  # a literal scope name
                times.append((time.perf_counter() - t0) * 1000)
            print(f"  /usage read, {scope:<7}: {statistics.median(times):.2f} ms")


if __name__ == "__main__":
    main()
