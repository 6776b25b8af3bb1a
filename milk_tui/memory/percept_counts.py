"""Fact counts kept, not recounted: how many facts each (scope, session, producer, consumer,
pinned) holds.

A list shows its total (the fact browser's "999,800 facts"); ``COUNT(*)`` over a million
facts reads the whole scope index (~35 ms, and again at each live refresh), and with a
producer, consumer or pinned filter the whole table (~170 ms).  SQLite triggers keep
``percept_counts`` in step with every insert, delete and change of those columns, whichever
code path writes, so a count with any of those filters is a sum of a few rows.  A count
with a weight floor is still counted.

Migration 012 kept them by (scope, session) only; 014 widens the key (a one-time grouping of
every fact: ~1.7 s at a million facts, docs/performance.md "Scale, round 2").
"""

from __future__ import annotations

from typing import Any

from milk_tui.storage.db import MigrationConnection, register_migration

_M012_INSERT_TRIGGER = """
CREATE TRIGGER percept_counts_insert AFTER INSERT ON percepts BEGIN
    INSERT INTO percept_counts (scope, session_id, n) VALUES (new.scope, new.session_id, 1)
        ON CONFLICT (scope, session_id) DO UPDATE SET n = n + 1;
END;
"""


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
        + _M012_INSERT_TRIGGER
    )


register_migration("012_percept_counts", _m012_percept_counts)

KEY = "scope, session_id, producer, consumer, core"
"""What a count is kept by (the columns of ``percepts`` a list filters on, but weight)."""

INSERT_TRIGGER = f"""
CREATE TRIGGER percept_counts_insert AFTER INSERT ON percepts BEGIN
    INSERT INTO percept_counts ({KEY}, n)
        VALUES (new.scope, new.session_id, new.producer, new.consumer, new.core, 1)
        ON CONFLICT ({KEY}) DO UPDATE SET n = n + 1;
END;
"""
"""Also dropped and re-created by a bulk insert, which adds its rows' counts at once."""

_OLD_GONE = """
    UPDATE percept_counts SET n = n - 1
        WHERE scope = old.scope AND session_id = old.session_id AND producer = old.producer
        AND consumer = old.consumer AND core = old.core;
    DELETE FROM percept_counts
        WHERE scope = old.scope AND session_id = old.session_id AND producer = old.producer
        AND consumer = old.consumer AND core = old.core AND n <= 0;
"""


def _m014_percept_kind_counts(db: MigrationConnection) -> None:
    # A row that falls to zero goes: the sums read only what is there.
    db.executescript(
        f"""
        DROP TRIGGER percept_counts_insert;
        DROP TRIGGER percept_counts_delete;
        DROP TRIGGER percept_counts_move;
        DROP TABLE percept_counts;
        CREATE TABLE percept_counts (
            scope TEXT NOT NULL,
            session_id TEXT NOT NULL,
            producer TEXT NOT NULL,
            consumer TEXT NOT NULL,
            core INTEGER NOT NULL,
            n INTEGER NOT NULL,
            PRIMARY KEY ({KEY})
        ) WITHOUT ROWID;
        INSERT INTO percept_counts ({KEY}, n)
            SELECT {KEY}, count(*) FROM percepts GROUP BY {KEY};
        CREATE TRIGGER percept_counts_delete AFTER DELETE ON percepts BEGIN
            {_OLD_GONE}
        END;
        CREATE TRIGGER percept_counts_move
        AFTER UPDATE OF scope, session_id, producer, consumer, core ON percepts
        WHEN old.scope IS NOT new.scope OR old.session_id IS NOT new.session_id
            OR old.producer IS NOT new.producer OR old.consumer IS NOT new.consumer
            OR old.core IS NOT new.core BEGIN
            {_OLD_GONE}
            INSERT INTO percept_counts ({KEY}, n)
                VALUES (new.scope, new.session_id, new.producer, new.consumer, new.core, 1)
                ON CONFLICT ({KEY}) DO UPDATE SET n = n + 1;
        END;
        """
        + INSERT_TRIGGER
    )


register_migration("014_percept_kind_counts", _m014_percept_kind_counts)


def kept_count(flt: Any) -> tuple[str, list[Any]] | None:
    """SQL (and parameters) reading the count of a ``PerceptFilter`` from the kept counts;
    None when the filter has a weight floor."""
    if flt.min_weight is not None:
        return None
    cond: list[str] = []
    params: list[Any] = []
    if flt.scope == "global":
        cond.append("scope = 'global'")
    elif flt.scope == "session":
        cond.append("scope = 'session'")
        if flt.session_id is not None:
            cond.append("session_id = ?")
            params.append(flt.session_id)
    elif flt.session_id is not None:  # visible in a session: global ∪ its own
        cond.append("(scope = 'global' OR (scope = 'session' AND session_id = ?))")
        params.append(flt.session_id)
    for col, val in (("producer", flt.producer), ("consumer", flt.consumer)):
        if val is not None:
            cond.append(f"{col} = ?")
            params.append(val)
    if flt.core is not None:
        cond.append("core = ?")
        params.append(int(flt.core))
    where = f" WHERE {' AND '.join(cond)}" if cond else ""
    return f"SELECT coalesce(sum(n), 0) FROM percept_counts{where}", params
