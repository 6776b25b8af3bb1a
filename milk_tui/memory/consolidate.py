"""End-of-session consolidation: decay, prune, promote, cap (docs/adr/0005-percepts-in-sqlite-fts5.md).

Runs as set-based SQL over the one session's facts, so its cost is a few index-driven
statements whatever the size of the global store.  The constants are bound as
parameters (Python floats), never as SQL literals, so SQLite does exactly the IEEE-754
double arithmetic the tests pin (0.9 − 0.1 ≥ 0.8 is true; 0.7 dies on pass 6).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from milk_tui.memory.store import PerceptStore

DECAY_PER_SESSION = 0.10
"""Weight a session-scoped fact loses at each session end."""
PROMOTE_THRESHOLD = 0.80
"""A session fact at or above this weight becomes global."""
PRUNE_THRESHOLD = 0.20
"""Only weights strictly above it survive a consolidation."""


@dataclass
class ConsolidationReport:
    decayed: list[tuple[int, float]] = field(default_factory=list)
    """(id, new weight) of every decayed fact that survived."""
    pruned: list[int] = field(default_factory=list)
    promoted: list[int] = field(default_factory=list)
    capped: list[int] = field(default_factory=list)
    """Global non-pinned facts dropped by the optional ``percept_store_max`` cap."""

    def summary(self) -> str:
        return (f"decayed {len(self.decayed)}, pruned {len(self.pruned)}, "
                f"promoted {len(self.promoted)}, capped {len(self.capped)}")  # fmt: skip


def consolidate_in(
    conn: sqlite3.Connection, store: PerceptStore, session_id: str, store_max: int = 0
) -> ConsolidationReport:
    rep = ConsolidationReport()
    if session_id:
        own = "scope = 'session' AND session_id = ? AND core = 0"
        decayed = "max(weight - ?, 0.0)"  # the same IEEE expression in every statement
        rep.pruned = [r[0] for r in conn.execute(
            f"SELECT id FROM percepts WHERE {own} AND {decayed} <= ?",
            (session_id, DECAY_PER_SESSION, PRUNE_THRESHOLD),
        )]  # fmt: skip
        store.remove(conn, rep.pruned)
        rows = conn.execute(
            f"UPDATE percepts SET weight = {decayed}, scope = CASE WHEN {decayed} >= ? "
            f"AND scope_chosen = 0 THEN 'global' ELSE scope END WHERE {own} "
            "RETURNING id, weight, scope",
            (DECAY_PER_SESSION, DECAY_PER_SESSION, PROMOTE_THRESHOLD, session_id),
        ).fetchall()  # fmt: skip
        rep.decayed = [(r[0], r[1]) for r in rows]
        rep.promoted = [r[0] for r in rows if r[2] == "global"]
    if store_max > 0:
        n = conn.execute("SELECT COUNT(*) FROM percepts WHERE scope = 'global'").fetchone()[0]
        if n > store_max:
            rep.capped = [r[0] for r in conn.execute(
                "SELECT id FROM percepts WHERE scope = 'global' AND core = 0 "
                "ORDER BY weight ASC, id ASC LIMIT ?", (n - store_max,),
            )]  # fmt: skip
            store.remove(conn, rep.capped)
    return rep
