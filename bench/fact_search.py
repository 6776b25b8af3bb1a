"""Fact search latency at scale: p50/p95 of ``PerceptStore.search`` (one page of 50, as
``memory list --search`` and the fact browser ask) on a large store, next to the same
searches on a 1,000-fact store in the same run (budget: p95 ≤ 20 ms at a million facts).

    python bench/fact_search.py [--home DIR] [--facts N] [--runs R]

The large store is ``bench/big_store.py``'s (built or reused in ``--home``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from big_store import DB_NAME, build  # noqa: E402

from milk_tui.memory.store import PerceptFilter, PerceptStore  # noqa: E402
from milk_tui.storage.db import Database  # noqa: E402

QUERIES = ("kafka router", "deploy cache index", "kafka", "ka", "123456", "zebra")
"""Two and three common words (~4 % and ~1 % of facts), one common word (~20 %), a short
prefix, a rare reference, a word in no fact."""


def timings(home: Path, runs: int) -> dict[str, list[float]]:
    db = Database(home / DB_NAME)
    store = PerceptStore(db)
    out: dict[str, list[float]] = {}
    for q in QUERIES:
        store.search(q, PerceptFilter(), limit=50, count=False)  # warm the page cache
        ms = []
        for _ in range(runs):
            t0 = time.perf_counter()
            store.search(q, PerceptFilter(), limit=50, count=False)
            ms.append((time.perf_counter() - t0) * 1000)
        out[q] = sorted(ms)
    db.close()
    return out


def p95(ms: list[float]) -> float:
    return ms[min(len(ms) - 1, int(len(ms) * 0.95))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, default=Path(tempfile.gettempdir()) / "milk-big-search")
    ap.add_argument("--facts", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=40)
    a = ap.parse_args()
    big = build(a.home, a.facts, 100_000, 1_000)
    with tempfile.TemporaryDirectory() as t:
        small = build(Path(t) / "small", 1_000, 2, 1, quiet=True)
        base, large = timings(small, a.runs), timings(big, a.runs)
    print(f"{'query':<22}{'1k p50':>9}{'1k p95':>9}{'big p50':>9}{'big p95':>9}{'p95 ratio':>11}")
    worst = 0.0
    for q in QUERIES:
        b, g = base[q], large[q]
        worst = max(worst, p95(g))
        print(f"{q:<22}{statistics.median(b):>9.1f}{p95(b):>9.1f}"
              f"{statistics.median(g):>9.1f}{p95(g):>9.1f}{p95(g) / max(p95(b), 0.01):>10.1f}x")  # fmt: skip
    print(f"worst p95 at {a.facts:,} facts: {worst:.1f} ms (budget 20 ms)")


if __name__ == "__main__":
    main()
