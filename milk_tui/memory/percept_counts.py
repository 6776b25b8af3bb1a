"""Fact counts kept, not recounted: how many facts each (scope, session) holds.

A list shows its total (the fact browser's "999,800 facts"); ``COUNT(*)`` over a million
facts reads the whole scope index (~35 ms, and again at each live refresh).  SQLite
triggers keep ``percept_counts`` in step with every insert, delete and scope change,
whichever code path writes, so a count of a scope or a session is a read of a few rows.
A count with other filters (producer, consumer, pinned, weight) is still counted.
"""

from __future__ import annotations

from typing import Any

from milk_tui.storage.db import MigrationConnection, register_migration

INSERT_TRIGGER = """
CREATE TRIGGER percept_counts_insert AFTER INSERT ON percepts BEGIN
    INSERT INTO percept_counts (scope, session_id, n) VALUES (new.scope, new.session_id, 1)
        ON CONFLICT (scope, session_id) DO UPDATE SET n = n + 1;
END;
"""
"""Also dropped and re-created by a bulk insert, which adds its rows' counts at once."""


def _m012_percept_counts(db: MigrationConnection) -> None:
    db.executescript(
        """
        CREATE TABLE percept_counts (
            scope TEXT NOT NULL,
            session_id TEXT NOT NULL,
            n INTEGER NOT NULL,
            PRIMARY KEY (scope, session_id)
        ) WITHOUT ROWID;
        INSERT INTO percept_counts (scope, session_id, n)
            SELECT scope, session_id, count(*) FROM percepts GROUP BY scope, session_id;
        CREATE TRIGGER percept_counts_delete AFTER DELETE ON percepts BEGIN
            UPDATE percept_counts SET n = n - 1
                WHERE scope = old.scope AND session_id = old.session_id;
        END;
        CREATE TRIGGER percept_counts_move AFTER UPDATE OF scope, session_id ON percepts
        WHEN old.scope IS NOT new.scope OR old.session_id IS NOT new.session_id BEGIN
            UPDATE percept_counts SET n = n - 1
                WHERE scope = old.scope AND session_id = old.session_id;
            INSERT INTO percept_counts (scope, session_id, n)
                VALUES (new.scope, new.session_id, 1)
                ON CONFLICT (scope, session_id) DO UPDATE SET n = n + 1;
        END;
        """
        + INSERT_TRIGGER
    )


register_migration("012_percept_counts", _m012_percept_counts)


def kept_count(flt: Any) -> tuple[str, list[Any]] | None:
    """SQL (and parameters) reading the count of a ``PerceptFilter`` from the kept counts;
    None when the filter asks for more than a scope and a session."""
    if any(getattr(flt, f) is not None for f in ("producer", "consumer", "core", "min_weight")):
        return None
    total = "SELECT coalesce(sum(n), 0) FROM percept_counts"
    if flt.scope == "global":
        return f"{total} WHERE scope = 'global'", []
    if flt.scope == "session":
        if flt.session_id is None:
            return f"{total} WHERE scope = 'session'", []
        return f"{total} WHERE scope = 'session' AND session_id = ?", [flt.session_id]
    if flt.session_id is not None:  # visible in a session: global ∪ its own
        return (
            f"{total} WHERE scope = 'global' OR (scope = 'session' AND session_id = ?)",
            [flt.session_id],
        )
    return total, []
