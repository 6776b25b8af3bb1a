"""Per-turn commit time with 0, 100 and 5,000 facts: one transaction vs the old two steps.

* one transaction — ``engine.turn_commit.save_turn``: the turns, session state, tokens and
  every fact in one ``BEGIN IMMEDIATE`` … ``COMMIT`` (docs/adr/0014-one-transaction-per-turn.md);
* before (baseline, same run) — what the commit did before: ``SessionStore.commit_turns``,
  then each fact through ``MemoryService.record`` in its own transaction.

Both run on databases already holding a 200-turn session and 2,000 facts, alternating,
fresh fact texts every turn; medians in ms, and the ratio new / before.  The 5,000-fact
case is above the per-reply cap (``MAX_FACTS_PER_REPLY``) on purpose: it is the worst a
commit can be asked to carry.  Run: ``python bench/turn_commit.py`` (``--quick``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from milk_tui.engine.bus import EventBus  # noqa: E402
from milk_tui.engine.turn_commit import save_turn  # noqa: E402
from milk_tui.memory.service import MemoryService  # noqa: E402
from milk_tui.memory.store import PerceptStore  # noqa: E402
from milk_tui.model.session import Session, Turn  # noqa: E402
from milk_tui.storage.db import Database  # noqa: E402
from milk_tui.storage.sessions import SessionStore  # noqa: E402

WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima".split()


class Rig:
    def __init__(self, path: Path) -> None:
        self.db = Database(path)
        self.store = SessionStore(self.db)
        self.mem = MemoryService(PerceptStore(self.db), EventBus())
        self.s: Session = self.store.create("/bench")
        self.k = 0
        self.turn([self.fact(i) for i in range(2000)], one_transaction=True, turns=100)

    def fact(self, i: int) -> dict[str, Any]:
        self.k += 1
        body = f"fact{self.k}x {WORDS[i % 12]} {WORDS[(i * 7) % 12]} note{self.k}y"
        return self.mem.agent_fact(body, "primary", self.s.id, len(self.s.history), "p", "e")

    def turn(self, facts: list[dict[str, Any]], one_transaction: bool, turns: int = 1) -> float:
        new = []
        for _ in range(turns):
            new += [Turn("user", "a question " * 20), Turn("assistant", "an answer " * 80)]
        self.s.history.extend(new)
        t0 = time.perf_counter()
        if one_transaction:
            save_turn(self.store, self.mem, self.s, new, [], facts)
        else:
            self.store.commit_turns(self.s, new, [])
            for args in facts:
                self.mem.record(**args)
        return (time.perf_counter() - t0) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rigs = {"one transaction": Rig(Path(tmp) / "new.db"), "before": Rig(Path(tmp) / "old.db")}
        print(f"{'facts':>6}  {'one transaction':>16}  {'before':>10}  {'new/before':>10}")
        for n in (0, 100, 5000):
            rounds = (2 if args.quick else 5) if n == 5000 else (5 if args.quick else 30)
            got: dict[str, list[float]] = {k: [] for k in rigs}
            for _ in range(rounds):
                for name, rig in rigs.items():  # alternating: both see the same load
                    facts = [rig.fact(i) for i in range(n)]
                    got[name].append(rig.turn(facts, one_transaction=name != "before"))
            new, old = (statistics.median(got[k]) for k in rigs)
            print(f"{n:>6}  {new:>13.2f} ms  {old:>7.2f} ms  {new / old:>10.2f}")
        for rig in rigs.values():
            rig.db.close()


if __name__ == "__main__":
    main()
