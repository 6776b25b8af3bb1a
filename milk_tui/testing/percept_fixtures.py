"""Bulk percepts for the fact browser's tests and benchmark.

Goes through ``PerceptStore.insert`` (row + FTS terms) in one transaction rather than
``MemoryService.record``: 100,000 facts with the duplicate check would take minutes, and
the browser only needs the rows to exist, exactly as the store writes them.
"""

from __future__ import annotations

import random

from milk_tui.memory.store import PerceptStore
from milk_tui.model.percept import Percept

WORDS = ("build", "cache", "deploy", "python", "sqlite", "textual", "prefers", "tabs", "spaces",
         "project", "uses", "branch", "release", "tests", "server", "llama", "claude", "config",
         "folder", "keys", "theme", "dark", "light", "api", "limit", "budget", "weekly", "notes")  # fmt: skip
PRODUCERS = ("user", "primary", "escalation", "system")
CONSUMERS = ("all", "all", "primary", "escalation")


def bulk_facts(store: PerceptStore, n: int, *, session_id: str = "", seed: int = 7,
               now: float = 1_767_225_600.0) -> None:  # fmt: skip
    """Insert ``n`` varied, distinct facts; a quarter global, one in 50 pinned."""
    rnd = random.Random(seed)
    with store.db.transaction() as conn:
        for i in range(n):
            words = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(4, 12)))
            core = i % 50 == 0
            scope = "global" if core or i % 4 == 0 or not session_id else "session"
            t = now - (n - i) * 7.0
            store.insert(conn, Percept(
                id=0, content=f"{words} #{i}", producer=PRODUCERS[i % 4],
                consumer=CONSUMERS[i % 4], scope=scope, core=core,
                weight=1.0 if core else round(rnd.uniform(0.25, 0.95), 2), created_at=t,
                updated_at=t, session_id=session_id if scope == "session" else "",
                turn_index=(i % 40) + 1 if scope == "session" else 0,
            ))  # fmt: skip
