"""The kept fact counts (``memory/percept_counts.py``) equal a recount after every kind of
write: record, scope change, delete, undo, end-of-session promotion and pruning, an import."""

from __future__ import annotations

from pathlib import Path

from milk_tui.engine.bus import EventBus
from milk_tui.memory.import_go import import_go
from milk_tui.memory.service import MemoryService
from milk_tui.memory.store import PerceptFilter, PerceptStore
from milk_tui.storage.db import Database
from milk_tui.testing.go_install import make_go_install
from milk_tui.testing.percept_fixtures import bulk_facts

S, T = "sess-a", "sess-b"


def _recount(db: Database, flt: PerceptFilter) -> int:
    where, params = flt.where()
    return int(db.query(f"SELECT count(*) FROM percepts p WHERE {where}", tuple(params))[0][0])


_PLACES = (
    PerceptFilter(),
    PerceptFilter(scope="global"),
    PerceptFilter(scope="session"),
    PerceptFilter(scope="session", session_id=S),
    PerceptFilter(scope="session", session_id=T),
    PerceptFilter(session_id=S),
    PerceptFilter(session_id="nobody"),
)
_KINDS: tuple[dict[str, object], ...] = (
    {},
    {"producer": "user"},
    {"producer": "primary"},
    {"consumer": "all"},
    {"consumer": "escalation"},
    {"core": True},
    {"core": False},
    {"producer": "user", "core": True},
    {"producer": "escalation", "consumer": "all", "core": False},
)


def _check(mem: MemoryService) -> None:
    """Every place the browser lists, with each producer, consumer and pinned filter."""
    db = mem.store.db
    for place in _PLACES:
        for kind in _KINDS:
            flt = PerceptFilter(**{**place.__dict__, **kind})  # type: ignore[arg-type]  # test's own keys
            assert mem.count(flt) == _recount(db, flt), flt
    assert db.query("SELECT count(*) FROM percept_counts WHERE n <= 0")[0][0] == 0


def test_kept_counts_follow_every_write(tmp_path: Path) -> None:
    db = Database(tmp_path / "milk.db")
    mem = MemoryService(PerceptStore(db), EventBus())
    bulk_facts(mem.store, 300, session_id=S)
    _check(mem)
    a = mem.record("the staging host is alpha", "user", session_id=T)
    b = mem.record("deploys go through the blue cluster", "primary", session_id=T)
    _check(mem)
    mem.edit(a.id, scope="global")
    _check(mem)
    mem.pin(a.id)
    mem.edit(b.id, consumer="escalation")
    _check(mem)
    mem.pin(a.id, pinned=False)
    _check(mem)
    mem.delete(b.id)
    _check(mem)
    mem.undo_last_edit()
    _check(mem)
    rep = mem.consolidate(T)
    _check(mem)
    assert rep.promoted or rep.decayed
    import_go(db, make_go_install(tmp_path / "go", 200, sessions=3, session_facts=4))
    _check(mem)
    assert mem.count(PerceptFilter()) == 300 + 2 + 200


def test_a_store_before_the_wider_counts_gets_them_at_upgrade(tmp_path: Path) -> None:
    from milk_tui.storage import db as db_module

    path = tmp_path / "milk.db"
    saved = list(db_module.MIGRATIONS)
    db_module.MIGRATIONS[:] = [m for m in saved if m[0] < "014"]
    try:
        db = Database(path)
        mem = MemoryService(PerceptStore(db), EventBus())
        bulk_facts(mem.store, 120, session_id=S)
        a = mem.record("the staging host is alpha", "user", session_id=T)
        mem.pin(a.id)
        mem.record("deploys go through the blue cluster", "escalation", session_id=T)
        cols = [r[1] for r in db.query("PRAGMA table_info(percept_counts)")]
        assert "producer" not in cols  # the counts as migration 012 kept them
        db.close()
    finally:
        db_module.MIGRATIONS[:] = saved
    db = Database(path)
    mem = MemoryService(PerceptStore(db), EventBus())
    assert "014_percept_kind_counts" in db.schema_version
    _check(mem)
    mem.record("one more after the upgrade", "primary", session_id=T)
    _check(mem)


def test_a_filtered_count_is_read_from_the_kept_counts(tmp_path: Path) -> None:
    """Not recounted: a kept count made wrong shows in the producer, consumer and pinned
    counts the browser asks for."""
    db = Database(tmp_path / "milk.db")
    mem = MemoryService(PerceptStore(db), EventBus())
    a = mem.record("the staging host is alpha", "user", session_id=T)
    mem.pin(a.id)
    with db.transaction() as conn:
        conn.execute("UPDATE percept_counts SET n = n + 7")
    assert mem.count(PerceptFilter(session_id=T, producer="user")) == 8
    assert mem.count(PerceptFilter(consumer="all", core=True)) == 8
