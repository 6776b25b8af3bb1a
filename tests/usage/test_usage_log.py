"""The usage log on a real SQLite file: rows written with the turn's own commit, totals per
scope, the cache-hit definition, series per turn and per day, and usage older than the log."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from milk_tui.engine.turn_commit import save_turn
from milk_tui.model.session import Session, TokenUsage, Turn
from milk_tui.model.usage import UsageRow, cache_hit_pct
from milk_tui.storage.db import Database, StorageError
from milk_tui.storage.sessions import SessionStore
from milk_tui.storage.usage_log import DAY_S, UsageLog

DAY0 = 1_767_225_600.0  # 2026-01-01T00:00:00Z


def _turn(store: SessionStore, s: Session, *usage: TokenUsage) -> None:
    new = [Turn("user", "q"), Turn("assistant", "a", agent="primary")]
    s.history.extend(new)
    for u in usage:
        s.add_tokens(u.model, u.role, u.prompt, u.completion, u.cache_read, u.cache_creation,
                     u.cost_usd)  # fmt: skip
    save_turn(store, None, s, new, list(usage), [])


def _log_rows(db: Database) -> list[sqlite3.Row]:
    return db.query("SELECT * FROM usage_log ORDER BY id")


def test_cache_hit_is_cached_share_of_all_input() -> None:
    # 200 fresh + 700 read + 100 written = 1000 input tokens, 700 of them from the cache.
    assert cache_hit_pct(200, 700, 100) == pytest.approx(70.0)
    assert cache_hit_pct(0, 0, 0) is None
    assert UsageRow("m", "primary", 50, 3, 50, 0, turns=1).cache_hit_pct == pytest.approx(50.0)


def test_a_turn_writes_one_row_per_model_and_role_in_its_commit(
    db: Database, store: SessionStore, tmp_path: Path
) -> None:
    s = store.create(str(tmp_path))
    # Two tool-loop rounds of one model arrive as two deltas: one row for the turn.
    _turn(
        store,
        s,
        TokenUsage("m", "primary", 100, 10, 400, 0, 0.0),
        TokenUsage("m", "primary", 50, 5, 450, 20, 0.0),
        TokenUsage("claude", "escalation", 7, 70, 0, 0, 0.25),
    )
    rows = _log_rows(db)
    assert [(r["model"], r["role"], r["prompt"], r["cache_read"], r["cache_creation"])
            for r in rows] == [("m", "primary", 150, 850, 20), ("claude", "escalation", 7, 0, 0)]  # fmt: skip
    assert {r["session_id"] for r in rows} == {s.id} and {r["cwd"] for r in rows} == {s.cwd}
    assert len({r["turn"] for r in rows}) == 1
    totals = UsageLog(db).totals("session", s.id)
    assert totals[0] == UsageRow("claude", "escalation", 7, 70, 0, 0, 0.25, turns=1)
    assert totals[1] == UsageRow("m", "primary", 150, 15, 850, 20, 0.0, turns=1)


def test_a_failed_commit_logs_nothing(db: Database, store: SessionStore, tmp_path: Path) -> None:
    s = store.create(str(tmp_path))
    store.delete(s.id)  # the commit finds no session row and rolls back
    with pytest.raises(StorageError):
        _turn(store, s, TokenUsage("m", "primary", 100, 10))
    assert _log_rows(db) == []


def test_scopes_session_folder_all(db: Database, store: SessionStore, tmp_path: Path) -> None:
    a1 = store.create(str(tmp_path / "a"))
    a2 = store.create(str(tmp_path / "a"))
    b = store.create(str(tmp_path / "b"))
    _turn(store, a1, TokenUsage("m", "primary", 10, 1))
    _turn(store, a1, TokenUsage("m", "primary", 10, 1))
    _turn(store, a2, TokenUsage("m", "primary", 5, 1))
    _turn(store, b, TokenUsage("m", "primary", 1, 1, 0, 0, 0.5))
    log = UsageLog(db)
    assert [(r.turns, r.prompt) for r in log.totals("session", a1.id)] == [(2, 20)]
    assert [(r.turns, r.prompt) for r in log.totals("folder", str(tmp_path / "a"))] == [(3, 25)]
    assert [(r.turns, r.prompt, r.cost_usd) for r in log.totals("all")] == [(4, 26, 0.5)]


def test_deleted_session_still_counts_in_all_time(
    db: Database, store: SessionStore, tmp_path: Path
) -> None:
    s = store.create(str(tmp_path))
    _turn(store, s, TokenUsage("m", "primary", 10, 1, 0, 0, 0.1))
    store.delete(s.id)
    assert [(r.turns, r.cost_usd) for r in UsageLog(db).totals("all")] == [(1, 0.1)]


def test_series_per_turn_and_per_local_day(
    db: Database, store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = store.create(str(tmp_path))
    clock = iter([DAY0 + 3600, DAY0 + 7200, DAY0 + DAY_S + 60])
    monkeypatch.setattr("milk_tui.storage.usage_log.time.time", lambda: next(clock))
    _turn(store, s, TokenUsage("m", "primary", 10, 1, 5, 0, 0.01))
    _turn(store, s, TokenUsage("m", "primary", 20, 2))
    _turn(store, s, TokenUsage("m", "primary", 30, 3, 0, 0, 0.02))
    log = UsageLog(db)
    per_turn = log.series("session", s.id)
    assert [(p.label, p.tokens, p.cost_usd) for p in per_turn] == [
        ("1", 16, 0.01), ("2", 22, 0.0), ("3", 33, 0.02)
    ]  # fmt: skip
    days = log.series("all", utc_offset=0)
    assert [(p.label, p.tokens) for p in days] == [("2026-01-01", 38), ("2026-01-02", 33)]
    # Two hours west of UTC the first two turns still fall on New Year's Eve.
    west = log.series("folder", s.cwd, utc_offset=-3 * 3600)
    assert [(p.label, p.tokens) for p in west] == [("2025-12-31", 38), ("2026-01-01", 33)]


def test_usage_older_than_the_log_counts_once(
    db: Database, store: SessionStore, tmp_path: Path
) -> None:
    """A session whose early turns predate the log (only in ``tokens``) and later turns are
    logged: every total holds both parts exactly once."""
    s = store.create(str(tmp_path))
    with db.transaction() as conn:  # what an old release (or a Go import) left behind
        conn.execute(
            "INSERT INTO tokens (session_id, model, role, prompt, completion, cache_read, "
            "cache_creation, cost_usd) VALUES (?, 'm', 'primary', 100, 10, 40, 0, 0.5)",
            (s.id,),
        )
        for i in range(3):
            for role in ("user", "assistant"):
                conn.execute(
                    "INSERT INTO turns (session_id, role, agent, content, timestamp) "
                    "VALUES (?, ?, 'primary', 'old', ?)",
                    (s.id, role, DAY0 + i),
                )
    s = store.load(s.id) or s
    _turn(store, s, TokenUsage("m", "primary", 1, 1, 0, 0, 0.25))
    (row,) = UsageLog(db).totals("folder", s.cwd)
    assert row == UsageRow("m", "primary", 101, 11, 40, 0, 0.75, turns=4)
    series = UsageLog(db).series("session", s.id)
    assert [(p.label, p.tokens) for p in series] == [("earlier", 150), ("4", 2)]
