"""Percepts in the shared SQLite database: rows, FTS5 index, edit history.

The FTS5 table indexes *our* token string (``dedup.tokens``, kept in ``percepts.terms``)
rather than the raw content, so candidate search, the relevance gate and Jaccard agree on
what a word is (our tokenizer treats accented letters as separators; FTS's own tokenizers
do not).  It is an external-content index over ``percepts.terms``; we keep it and the
per-word fact counts (``percept_terms``) in sync from Python inside the same transaction as
the row change, which is why every write goes through this class.
"""

from __future__ import annotations

import builtins
import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any, TypedDict

from milk_tui.memory import fact_search, percept_counts
from milk_tui.memory.dedup import min_shared, tokens
from milk_tui.model.percept import Percept
from milk_tui.storage.db import Database, MigrationConnection, register_migration

COLUMNS = ("id", "content", "producer", "consumer", "scope", "core", "weight", "created_at",
           "updated_at", "session_id", "turn_index")  # fmt: skip
_SELECT = "SELECT " + ", ".join(f"p.{c}" for c in COLUMNS) + " FROM percepts p"
EDITABLE = ("content", "consumer", "core", "weight", "scope")


def _m010_percepts(db: MigrationConnection) -> None:
    db.executescript(
        """
        CREATE TABLE percepts (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            content TEXT NOT NULL,
            producer TEXT NOT NULL,
            consumer TEXT NOT NULL DEFAULT 'all',
            scope TEXT NOT NULL DEFAULT 'session',
            session_id TEXT NOT NULL DEFAULT '',
            turn_index INTEGER NOT NULL DEFAULT 0,
            core INTEGER NOT NULL DEFAULT 0,
            weight REAL NOT NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            ext_id TEXT,
            terms TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX percepts_scope ON percepts(scope, session_id);
        CREATE INDEX percepts_weight ON percepts(weight);
        CREATE INDEX percepts_updated ON percepts(updated_at);
        CREATE UNIQUE INDEX percepts_ext ON percepts(ext_id) WHERE ext_id IS NOT NULL;
        CREATE VIRTUAL TABLE percepts_fts USING fts5(
            terms, content='percepts', content_rowid='id', tokenize='ascii');
        CREATE TABLE percept_terms (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE percept_edits (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            percept_id INTEGER NOT NULL,
            action TEXT NOT NULL,
            editor TEXT NOT NULL,
            at REAL NOT NULL,
            before TEXT NOT NULL,
            after TEXT NOT NULL
        );
        CREATE INDEX percept_edits_pid ON percept_edits(percept_id, id);
        """
    )


def _m011_scope_chosen(db: MigrationConnection) -> None:
    """A fact whose scope the user chose keeps it: end-of-session promotion skips it."""
    db.executescript("ALTER TABLE percepts ADD COLUMN scope_chosen INTEGER NOT NULL DEFAULT 0;")


register_migration("010_percepts", _m010_percepts)
register_migration("011_scope_chosen", _m011_scope_chosen)


class ListPage(TypedDict, total=False):
    """Which page ``PerceptStore.list`` returns, as keyword arguments."""

    limit: int
    offset: int
    order: str


class SearchPage(TypedDict, total=False):
    """Which page ``PerceptStore.search`` returns, as keyword arguments."""

    limit: int
    offset: int
    any_word: bool


@dataclass
class PerceptFilter:
    """``session_id`` alone means "visible in that session" (global ∪ its session facts)."""

    scope: str | None = None
    session_id: str | None = None
    producer: str | None = None
    consumer: str | None = None
    core: bool | None = None
    min_weight: float | None = None

    def where(self) -> tuple[str, list[Any]]:
        parts: list[str] = []
        params: list[Any] = []
        if self.scope == "global":
            parts.append("p.scope = 'global'")
        elif self.scope == "session":
            parts.append("p.scope = 'session'")
            if self.session_id is not None:
                parts.append("p.session_id = ?")
                params.append(self.session_id)
        elif self.session_id is not None:
            parts.append("(p.scope = 'global' OR (p.scope = 'session' AND p.session_id = ?))")
            params.append(self.session_id)
        for col, val in (("producer", self.producer), ("consumer", self.consumer)):
            if val is not None:
                parts.append(f"p.{col} = ?")
                params.append(val)
        if self.core is not None:
            parts.append("p.core = ?")
            params.append(int(self.core))
        if self.min_weight is not None:
            parts.append("p.weight >= ?")
            params.append(self.min_weight)
        return (" AND ".join(parts) or "1"), params


def _values(p: Percept) -> tuple:
    """The stored columns from ``content`` to ``updated_at``, in INSERT order."""
    return (p.content, p.producer, p.consumer, p.scope, p.session_id, p.turn_index, int(p.core),
            p.weight, p.created_at, p.updated_at)  # fmt: skip


def row_to_percept(r: sqlite3.Row | tuple) -> Percept:
    return Percept(
        id=r[0],
        content=r[1],
        producer=r[2],
        consumer=r[3],
        scope=r[4],
        core=bool(r[5]),
        weight=r[6],
        created_at=r[7],
        updated_at=r[8],
        session_id=r[9],
        turn_index=r[10],
    )


def _terms(content: str) -> str:
    return " ".join(tokens(content))


def _count_terms(conn: sqlite3.Connection, term_strings: list[str], delta: int) -> None:
    counts: dict[str, int] = {}
    for ts in term_strings:
        for w in ts.split():
            counts[w] = counts.get(w, 0) + delta
    if counts:
        conn.executemany(
            "INSERT INTO percept_terms (term, df) VALUES (?, ?) "
            "ON CONFLICT(term) DO UPDATE SET df = df + excluded.df",
            list(counts.items()),
        )


ORDER_INDEX = {
    "weight": "INDEXED BY percepts_weight",
    "recent": "INDEXED BY percepts_updated",
    "id": "NOT INDEXED",
}  # fmt: skip  (NOT INDEXED: rowid order)

CANDIDATE_ROWID_BUDGET = 1000
"""Doclist entries (counted in SQL) read per duplicate check beyond the pigeonhole minimum.
Reading a few more rare words raises the number of them a candidate must hold, which
cuts the candidates fetched to ~0; at 100k facts 500–1,000 measured fastest (~1 ms)."""

ORDERS = {"weight": "p.weight DESC, p.id DESC", "recent": "p.updated_at DESC, p.id DESC",
          "id": "p.id ASC"}  # fmt: skip


class PerceptStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.migrate()  # our schema registers at import, possibly after the db was opened

    # ----- rows -------------------------------------------------------------------------

    def insert(self, conn: sqlite3.Connection, p: Percept, ext_id: str | None = None) -> int:
        terms = _terms(p.content)
        cur = conn.execute(
            "INSERT INTO percepts (content, producer, consumer, scope, session_id, turn_index, "
            "core, weight, created_at, updated_at, ext_id, terms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (*_values(p), ext_id, terms),
        )
        pid = int(cur.lastrowid or 0)
        self._index(conn, pid, terms)
        return pid

    def _index(self, conn: sqlite3.Connection, pid: int, terms: str) -> None:
        conn.execute("INSERT INTO percepts_fts (rowid, terms) VALUES (?, ?)", (pid, terms))
        _count_terms(conn, [terms], +1)

    def _unindex(self, conn: sqlite3.Connection, rows: list[tuple[int, str]]) -> None:
        conn.executemany(
            "INSERT INTO percepts_fts (percepts_fts, rowid, terms) VALUES ('delete', ?, ?)", rows
        )
        _count_terms(conn, [t for _, t in rows], -1)

    def restore(self, conn: sqlite3.Connection, p: Percept) -> None:
        """Re-insert a deleted percept under its old id (undo of a delete)."""
        terms = _terms(p.content)
        conn.execute(
            "INSERT INTO percepts (id, content, producer, consumer, scope, session_id, turn_index, "
            "core, weight, created_at, updated_at, terms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (p.id, *_values(p), terms),
        )
        self._index(conn, p.id, terms)

    def update(self, conn: sqlite3.Connection, pid: int, fields: dict[str, Any]) -> None:
        if not fields:
            return
        cols = dict(fields)
        if "content" in cols:
            old = conn.execute("SELECT terms FROM percepts WHERE id = ?", (pid,)).fetchone()
            if old is not None:
                self._unindex(conn, [(pid, old[0])])
            cols["terms"] = _terms(cols["content"])
        sets = ", ".join(f"{k} = ?" for k in cols)
        vals = [int(v) if isinstance(v, bool) else v for v in cols.values()]
        conn.execute(f"UPDATE percepts SET {sets} WHERE id = ?", (*vals, pid))
        if "content" in cols:
            self._index(conn, pid, cols["terms"])

    def remove(self, conn: sqlite3.Connection, ids: list[int]) -> None:
        for i in range(0, len(ids), 500):
            part = ids[i : i + 500]
            marks = ",".join("?" * len(part))
            gone = conn.execute(
                f"SELECT id, terms FROM percepts WHERE id IN ({marks})", part
            ).fetchall()
            self._unindex(conn, [(r[0], r[1]) for r in gone])
            conn.execute(f"DELETE FROM percepts WHERE id IN ({marks})", part)

    def get(self, pid: int, conn: sqlite3.Connection | None = None) -> Percept | None:
        sql = _SELECT + " WHERE p.id = ?"
        rows = conn.execute(sql, (pid,)).fetchall() if conn else self.db.query(sql, (pid,))
        return row_to_percept(rows[0]) if rows else None

    # ----- edit history (undo) -------------------------------------------------------------

    def log_edit(
        self,
        conn: sqlite3.Connection,
        pid: int,
        action: str,
        editor: str,
        before: dict[str, Any],
        after: dict[str, Any],
    ) -> None:
        conn.execute(
            "INSERT INTO percept_edits (percept_id, action, editor, at, before, after) "
            "VALUES (?,?,?,?,?,?)",
            (pid, action, editor, time.time(), json.dumps(before), json.dumps(after)),
        )

    def last_edit(self, conn: sqlite3.Connection, pid: int | None) -> sqlite3.Row | None:
        if pid is None:
            return conn.execute("SELECT * FROM percept_edits ORDER BY id DESC LIMIT 1").fetchone()
        return conn.execute(
            "SELECT * FROM percept_edits WHERE percept_id = ? ORDER BY id DESC LIMIT 1", (pid,)
        ).fetchone()

    def history(self, pid: int) -> list[dict[str, Any]]:
        rows = self.db.query(
            "SELECT action, editor, at, before, after FROM percept_edits WHERE percept_id = ? "
            "ORDER BY id",
            (pid,),
        )
        return [{"action": r[0], "editor": r[1], "at": r[2], "before": json.loads(r[3]),
                 "after": json.loads(r[4])} for r in rows]  # fmt: skip

    # ----- duplicate candidates (never a full scan) ----------------------------------------

    def doc_freq(self, words: list[str], conn: sqlite3.Connection | None = None) -> dict[str, int]:
        """How many facts hold each word.  Our own counter table: fts5vocab counts by reading
        the whole doclist, which costs O(df) per common word."""
        sql = f"SELECT term, df FROM percept_terms WHERE term IN ({','.join('?' * len(words))})"
        rows = conn.execute(sql, words).fetchall() if conn else self.db.query(sql, tuple(words))
        return {r[0]: r[1] for r in rows}

    def duplicate_candidates(
        self, conn: sqlite3.Connection, words: list[str], session_id: str
    ) -> list[tuple[int, str]]:
        """(id, terms), global facts first then by id, of visible facts that can still reach the Jaccard threshold with
        ``words``, found from the rarest words' FTS doclists — never a scan of the store.

        J ≥ t needs at least k = ⌈t·n⌉ shared words.  Reading the doclists of the ``used``
        rarest words (at least n − k + 1 of them, more while they stay cheap), a fact must
        appear in ``k − (n − used)`` of them; only those facts are fetched and compared.
        """
        n = len(words)
        k = min_shared(n)
        df = self.doc_freq(words, conn)
        order = sorted(words, key=lambda w: df.get(w, 0))
        used = n - k + 1
        budget = sum(df.get(w, 0) for w in order[:used])
        while used < n and budget + df.get(order[used], 0) <= CANDIDATE_ROWID_BUDGET:
            budget += df.get(order[used], 0)
            used += 1
        need = k - (n - used)
        lists = [w for w in order[:used] if df.get(w, 0)]
        if not lists:
            return []
        # Count doclist hits in SQL so the per-row work stays in C.
        union = " UNION ALL ".join(
            "SELECT rowid AS r FROM percepts_fts WHERE percepts_fts MATCH ?" for _ in lists
        )
        out: list[tuple[int, str, str]] = conn.execute(
            "SELECT id, terms, scope FROM percepts WHERE id IN "
            f"(SELECT r FROM ({union}) GROUP BY r HAVING count(*) >= ?) "
            "AND (+scope = 'global' OR (+scope = 'session' AND +session_id = ?))",
            (*(f'"{w}"' for w in lists), need, session_id),
        ).fetchall()
        out.sort(key=lambda r: (r[2] == "session", r[0]))
        return [(r[0], r[1]) for r in out]

    # ----- browsing ----------------------------------------------------------------------

    def list(
        self,
        flt: PerceptFilter | None = None,
        limit: int = 100,
        offset: int = 0,
        order: str = "weight",
    ) -> list[Percept]:
        """One page in ``order``.  Unless the filter is one session's own facts (small and
        indexed), walk the order's index so a page costs O(offset + limit) rather than a
        sort of every visible fact (the planner would otherwise pick the scope index)."""
        flt = flt or PerceptFilter()
        where, params = flt.where()
        hint = "" if flt.scope == "session" and flt.session_id is not None else ORDER_INDEX[order]
        rows = self.db.query(
            f"{_SELECT} {hint} WHERE {where} ORDER BY {ORDERS[order]} LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return [row_to_percept(r) for r in rows]

    def count(self, flt: PerceptFilter | None = None) -> int:
        flt = flt or PerceptFilter()
        if (kept := percept_counts.kept_count(flt)) is not None:
            return int(self.db.query(kept[0], tuple(kept[1]))[0][0])
        if flt.scope is None and flt.session_id is not None:
            # "visible in a session" = global ∪ that session: two index range counts beat
            # one OR over the whole table.
            g = PerceptFilter(**{**flt.__dict__, "scope": "global"})
            own = PerceptFilter(**{**flt.__dict__, "scope": "session"})
            return self.count(g) + self.count(own)
        where, params = flt.where()
        return int(
            self.db.query(f"SELECT COUNT(*) FROM percepts p WHERE {where}", tuple(params))[0][0]
        )

    def search(self, query: str, flt: PerceptFilter | None = None, limit: int = 100,
               offset: int = 0, any_word: bool = False, count: bool = True,
               ) -> tuple[builtins.list[Percept], int]:  # fmt: skip
        """Every query word as a prefix (AND; OR of whole words with ``any_word``), best
        bm25 × weight first among the newest ``fact_search.CANDIDATES`` matches, then the
        older matches newest first; returns (page, total).  Without ``count`` the total is -1, not
        computed (a second pass over every match)."""
        words = tokens(query)
        where, params = (flt or PerceptFilter()).where()
        if not words:
            # A substring test, not LIKE: "%" or "_" typed by the user match only themselves.
            # lower() folds ASCII case as LIKE did.
            needle = query.strip().lower()
            cond = "instr(lower(p.content), ?) > 0"
            base = f"FROM percepts p WHERE {where} AND {cond}"
            n = self.db.query(f"SELECT COUNT(*) {base}", (*params, needle)) if count else [[-1]]
            rows = self.db.query(f"{_SELECT} WHERE {where} AND {cond} "
                                 f"ORDER BY {ORDERS['weight']} LIMIT ? OFFSET ?",
                                 (*params, needle, limit, offset))  # fmt: skip
            return [row_to_percept(r) for r in rows], int(n[0][0])
        ids, total = fact_search.matching_ids(
            self.db.query, words, any_word, (where, params), limit, offset, count
        )
        if not ids:
            return [], total
        marks = ",".join("?" * len(ids))
        got = {r[0]: r for r in self.db.query(f"{_SELECT} WHERE p.id IN ({marks})", tuple(ids))}
        out = [got[i] for i in ids if i in got]
        return [row_to_percept(r) for r in out], total
