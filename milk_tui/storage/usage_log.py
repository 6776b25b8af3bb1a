"""The usage log: one row per committed turn, model and role, so that "this session", "this
folder", "all time" and "over time" are queries (docs/adr/0026-usage-log.md).

Rows are written by ``append`` inside the turn's own transaction (storage/sessions.py
``commit_turns``' ``also``), so a turn and its usage are recorded together or not at all.
Rows carry the session's folder and are kept when a session is deleted: the tokens were
spent.

Usage older than the log (databases from before migration 004, sessions imported from a Go
milk) lives only in the per-session ``tokens`` table.  Every query adds, per session, model
and role, what ``tokens`` holds beyond the logged rows, dated at the session's last use, so
old sessions count in every total without a backfill that a later import would miss.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING

from milk_tui.model.session import TokenUsage
from milk_tui.storage.db import Database, MigrationConnection, register_migration

if TYPE_CHECKING:  # the rows' module loads with the first read (not at every start)
    from milk_tui.model.usage import UsagePoint, UsageRow, UsageScope

_COUNTS = ("prompt", "completion", "cache_read", "cache_creation", "cost_usd")
DAY_S = 86_400


def _m004_usage_log(db: MigrationConnection) -> None:
    db.executescript(
        """
        CREATE TABLE usage_log (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL,
            cwd TEXT NOT NULL,
            ts REAL NOT NULL,
            turn INTEGER NOT NULL DEFAULT 0,
            model TEXT NOT NULL, role TEXT NOT NULL,
            prompt INTEGER NOT NULL DEFAULT 0, completion INTEGER NOT NULL DEFAULT 0,
            cache_read INTEGER NOT NULL DEFAULT 0, cache_creation INTEGER NOT NULL DEFAULT 0,
            cost_usd REAL NOT NULL DEFAULT 0
        );
        CREATE INDEX usage_log_cwd ON usage_log(cwd, ts);
        CREATE INDEX usage_log_session ON usage_log(session_id, turn);
        """
    )


register_migration("004_usage_log", _m004_usage_log)


def append(
    conn: sqlite3.Connection,
    session_id: str,
    cwd: str,
    turn: int,
    deltas: Iterable[TokenUsage],
    ts: float | None = None,
) -> None:
    """One row per (model, role) of a turn's usage (a tool loop reports each round apart)."""
    merged: dict[tuple[str, str], TokenUsage] = {}
    for u in deltas:
        m = merged.setdefault((u.model, u.role), TokenUsage(u.model, u.role))
        m.add(u.prompt, u.completion, u.cache_read, u.cache_creation, u.cost_usd)
    if not merged:
        return
    when = time.time() if ts is None else ts
    conn.executemany(
        "INSERT INTO usage_log (session_id, cwd, ts, turn, model, role, prompt, completion, "
        "cache_read, cache_creation, cost_usd) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        [
            (session_id, cwd, when, turn, u.model, u.role, *(getattr(u, c) for c in _COUNTS))
            for u in merged.values()
        ],
    )


@dataclass(frozen=True, slots=True)
class _Earlier:
    """Usage of one session, model and role that the log does not hold."""

    session_id: str
    last_used: float
    row: UsageRow


def _where(scope: UsageScope, key: str, session_col: str, cwd_col: str) -> tuple[str, tuple]:
    if scope == "session":
        return f"WHERE {session_col} = ?", (key,)
    if scope == "folder":
        return f"WHERE {cwd_col} = ?", (key,)
    return "", ()


class UsageLog:
    """Reads of the log; ``key`` is the session id (scope ``session``) or the folder
    (scope ``folder``), ignored for ``all``."""

    def __init__(self, db: Database) -> None:
        self.db = db
        db.migrate()  # registered at import, possibly after the database was opened

    def totals(self, scope: UsageScope, key: str = "") -> list[UsageRow]:
        """Per (model, role), most expensive first (then most tokens)."""
        where, params = _where(scope, key, "session_id", "cwd")
        sums = {
            (r["model"], r["role"]): _row(r["model"], r["role"], r["n"], [r[c] for c in _COUNTS])
            for r in self.db.query(
                "SELECT model, role, COUNT(*) AS n, SUM(prompt) AS prompt, "
                "SUM(completion) AS completion, SUM(cache_read) AS cache_read, "
                "SUM(cache_creation) AS cache_creation, SUM(cost_usd) AS cost_usd "
                f"FROM usage_log {where} GROUP BY model, role",
                params,
            )
        }
        for e in self._earlier(scope, key):
            k = (e.row.model, e.row.role)
            sums[k] = sums[k].plus(e.row, e.row.turns) if k in sums else e.row
        return sorted(
            sums.values(),
            key=lambda r: (-r.cost_usd, -(r.prompt + r.cache_read + r.completion), r.model, r.role),
        )

    def series(
        self, scope: UsageScope, key: str = "", *, utc_offset: int | None = None
    ) -> list[UsagePoint]:
        """Tokens and cost over time: per turn for one session, per local day otherwise
        (``utc_offset`` seconds east of UTC; default: this machine's)."""
        off = time.localtime().tm_gmtoff if utc_offset is None else utc_offset
        where, params = _where(scope, key, "session_id", "cwd")
        bucket = "turn" if scope == "session" else f"CAST((ts + {int(off)}) / {DAY_S} AS INTEGER)"
        rows = self.db.query(
            f"SELECT {bucket} AS b, SUM(prompt + completion + cache_read + cache_creation) AS n, "
            f"SUM(cost_usd) AS c FROM usage_log {where} GROUP BY b",
            params,
        )
        points: dict[int, tuple[int, float]] = {r["b"]: (r["n"], r["c"]) for r in rows}
        for e in self._earlier(scope, key):
            # Before the log a session's usage has one date, its last use; within one
            # session it comes before the first logged turn (bucket 0).
            b = 0 if scope == "session" else int((e.last_used + off) // DAY_S)
            n, c = points.get(b, (0, 0.0))
            r = e.row
            points[b] = (
                n + r.prompt + r.completion + r.cache_read + r.cache_creation,
                c + r.cost_usd,
            )
        label = self._question_label(key) if scope == "session" else _day_label
        from milk_tui.model.usage import UsagePoint

        return [UsagePoint(label(b), n, c) for b, (n, c) in sorted(points.items())]

    def _question_label(self, session_id: str) -> Callable[[int], str]:
        """A session's bucket is its history length after the turn: labelled with the
        number of the question answered (user records up to there); 0 is "earlier"."""
        roles = self.db.query(
            "SELECT role FROM turns WHERE session_id = ? ORDER BY id", (session_id,)
        )
        asked = list(accumulate((r[0] == "user" for r in roles), initial=0))
        return lambda b: str(asked[min(b, len(asked) - 1)]) if b else "earlier"

    def _earlier(self, scope: UsageScope, key: str) -> list[_Earlier]:
        """What ``tokens`` holds beyond the log, per session, model and role, with the
        session's answered turns of that role not in the log given to its largest row."""
        where, params = _where(scope, key, "t.session_id", "s.cwd")
        # The log is summed only for the sessions in scope (its session index), so one
        # session's or folder's read does not scan every folder's rows.
        rows = self.db.query(
            "WITH scoped AS (SELECT t.*, s.last_used AS last_used FROM tokens t "
            f"JOIN sessions s ON s.id = t.session_id {where}), "
            "logged AS (SELECT session_id, model, role, "
            + ", ".join(f"SUM({c}) AS {c}" for c in _COUNTS)
            + " FROM usage_log WHERE session_id IN (SELECT session_id FROM scoped) "
            "GROUP BY session_id, model, role) "
            "SELECT t.session_id AS sid, t.last_used AS last_used, t.model AS model, "
            "t.role AS role, "
            + ", ".join(f"t.{c} - IFNULL(l.{c}, 0) AS {c}" for c in _COUNTS)
            + " FROM scoped t LEFT JOIN logged l ON l.session_id = t.session_id "
            "AND l.model = t.model AND l.role = t.role",
            params,
        )
        left = [r for r in rows if r["prompt"] > 0 or r["completion"] > 0 or r["cost_usd"] > 1e-12
                or r["cache_read"] > 0 or r["cache_creation"] > 0]  # fmt: skip
        if not left:
            return []
        unlogged = self._unlogged_turns({r["sid"] for r in left})
        biggest: dict[tuple[str, str], sqlite3.Row] = {}
        for r in left:
            k = (r["sid"], r["role"])
            if k not in biggest or _size(r) > _size(biggest[k]):
                biggest[k] = r
        out = []
        for r in left:
            k = (r["sid"], r["role"])
            turns = unlogged.get(k, 0) if biggest[k] is r else 0
            counts = [max(r[c], 0) for c in _COUNTS]
            out.append(
                _Earlier(r["sid"], r["last_used"], _row(r["model"], r["role"], turns, counts))
            )
        return out

    def _unlogged_turns(self, sids: set[str]) -> dict[tuple[str, str], int]:
        """Answers per (session, slot) in ``turns`` minus the logged turns of that role."""
        marks = ",".join("?" * len(sids))
        answered = self.db.query(
            "SELECT session_id, agent, COUNT(*) AS n FROM turns "
            f"WHERE role = 'assistant' AND session_id IN ({marks}) GROUP BY session_id, agent",
            tuple(sids),
        )
        logged = {
            (r["session_id"], r["role"]): r["n"]
            for r in self.db.query(
                "SELECT session_id, role, COUNT(DISTINCT turn) AS n FROM usage_log "
                f"WHERE session_id IN ({marks}) GROUP BY session_id, role",
                tuple(sids),
            )
        }
        return {
            (r["session_id"], r["agent"]): max(
                r["n"] - logged.get((r["session_id"], r["agent"]), 0), 0
            )
            for r in answered
        }


def _row(model: str, role: str, turns: int, counts: list) -> UsageRow:
    """A row from the five counts in ``_COUNTS`` order (``TokenUsage.add``'s)."""
    from milk_tui.model.usage import UsageRow

    row = UsageRow(model, role, turns=turns)
    row.add(*counts)
    return row


def _size(r: sqlite3.Row) -> int:
    return int(r["prompt"] + r["completion"] + r["cache_read"] + r["cache_creation"])


def _day_label(bucket: int) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(bucket * DAY_S))
