"""Many percepts at once (an import): the rows first, then their full-text entries.

One transaction; the rows go in by ``executemany`` in batches, then the FTS5 index gets all
of them in one ``INSERT … SELECT`` (FTS5 buffers and merges them itself, instead of a
segment flush per small insert) and the per-word fact counts one upsert per distinct word.
The result is what ``PerceptStore.insert`` one by one would have written (the store's
one other write path; keep the two in step).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

from milk_tui.memory import percept_counts
from milk_tui.memory.dedup import tokens
from milk_tui.model.percept import Percept
from milk_tui.storage.db import Database, run_script

BATCH = 20_000
"""Rows per ``executemany`` between two progress reports."""

IMPORT_CACHE_KIB = -131072
"""Page cache while importing (128 MiB, as a negative KiB count): the index B-trees of a
million new rows stay in memory instead of being re-read page by page."""

_INSERT = (
    "INSERT INTO percepts (content, producer, consumer, scope, session_id, turn_index, core, "
    "weight, created_at, updated_at, ext_id, terms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"
)


def ext_ids(db: Database) -> set[str]:
    """The Go ids of the percepts already imported."""
    return {r[0] for r in db.query("SELECT ext_id FROM percepts WHERE ext_id NOT NULL")}


def bulk_insert(db: Database, rows: Sequence[tuple[Percept, str | None]],
                done: Callable[[int], None]) -> None:  # fmt: skip
    """Insert ``(percept, ext_id)`` rows in one transaction; ``done(n)`` after each batch
    with the rows written so far."""
    if not rows:
        return
    old = db.query("PRAGMA cache_size")[0][0]
    db.query(f"PRAGMA cache_size = {IMPORT_CACHE_KIB}")
    try:
        with db.transaction() as conn:
            _insert(conn, rows, done)
    finally:
        db.query(f"PRAGMA cache_size = {int(old)}")


def _insert(conn: sqlite3.Connection, rows: Sequence[tuple[Percept, str | None]],
            done: Callable[[int], None]) -> None:  # fmt: skip
    first = int(conn.execute("SELECT coalesce(max(id), 0) FROM percepts").fetchone()[0]) + 1
    # The per-row count trigger is off for this transaction; the counts go in once below.
    conn.execute("DROP TRIGGER percept_counts_insert")
    counts: dict[str, int] = {}
    kept: dict[tuple[str, str, str, str, int], int] = {}
    """The rows' fact counts, by ``percept_counts.KEY``: counted here as the rows go by (a
    ``GROUP BY`` of the new rows afterwards sorts a million of them: ~5 s)."""
    for start in range(0, len(rows), BATCH):
        batch = []
        for p, ext in rows[start : start + BATCH]:
            words = tokens(p.content)
            for w in words:
                counts[w] = counts.get(w, 0) + 1
            k = (p.scope, p.session_id, p.producer, p.consumer, int(p.core))
            kept[k] = kept.get(k, 0) + 1
            batch.append((p.content, p.producer, p.consumer, p.scope, p.session_id,
                          p.turn_index, int(p.core), p.weight, p.created_at, p.updated_at, ext,
                          " ".join(words)))  # fmt: skip
        conn.executemany(_INSERT, batch)
        done(min(start + BATCH, len(rows)))
    key = percept_counts.KEY
    conn.executemany(
        f"INSERT INTO percept_counts ({key}, n) VALUES (?, ?, ?, ?, ?, ?) "
        f"ON CONFLICT ({key}) DO UPDATE SET n = n + excluded.n",
        [(*k, n) for k, n in sorted(kept.items())],
    )
    run_script(conn, percept_counts.INSERT_TRIGGER)
    conn.execute(
        "INSERT INTO percepts_fts (rowid, terms) SELECT id, terms FROM percepts WHERE id >= ?",
        (first,),
    )
    conn.executemany(
        "INSERT INTO percept_terms (term, df) VALUES (?, ?) "
        "ON CONFLICT(term) DO UPDATE SET df = df + excluded.df",
        sorted(counts.items()),  # in key order: appends to the B-tree, no page splits mid-tree
    )
