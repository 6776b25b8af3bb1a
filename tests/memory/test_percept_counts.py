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


def _check(mem: MemoryService) -> None:
    db = mem.store.db
    for flt in (
        PerceptFilter(),
        PerceptFilter(scope="global"),
        PerceptFilter(scope="session"),
        PerceptFilter(scope="session", session_id=S),
        PerceptFilter(scope="session", session_id=T),
        PerceptFilter(session_id=S),
        PerceptFilter(session_id="nobody"),
    ):
        assert mem.count(flt) == _recount(db, flt), flt


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
