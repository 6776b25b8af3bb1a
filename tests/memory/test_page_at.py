"""A page at a depth read from the order's index (``store_keyset.page_at``): the same facts
as ``LIMIT … OFFSET`` at every depth, and never an OFFSET over the table's rows."""

from __future__ import annotations

import sqlite3

import pytest

from milk_tui.facade.facts import FactQuery
from milk_tui.memory import store_keyset
from milk_tui.memory.service import MemoryService
from milk_tui.memory.store import PerceptFilter
from milk_tui.testing.percept_fixtures import bulk_facts

MINE, OTHER = "s-mine", "s-other"
N = 600


@pytest.fixture
def stocked(mem: MemoryService) -> MemoryService:
    # Two sessions' facts with the same times: ties in every order, and facts of another
    # session (hidden "here") spread through the whole order.
    bulk_facts(mem.store, N, session_id=MINE, seed=1)
    bulk_facts(mem.store, N // 3, session_id=OTHER, seed=2, now=1_767_225_600.0 - 300 * 7)
    return mem


FILTERS = {
    "here": FactQuery().to_filter(MINE),
    "all": FactQuery(scope="all").to_filter(MINE),
    "global": FactQuery(scope="global").to_filter(MINE),
}


@pytest.mark.parametrize("order", ["recent", "weight", "id"])
@pytest.mark.parametrize("scope", list(FILTERS))
def test_a_page_at_any_depth_is_the_offset_page(
    stocked: MemoryService, order: str, scope: str
) -> None:
    flt, db = FILTERS[scope], stocked.store.db
    total = stocked.count(flt)
    for depth in [*range(0, total + 50, 23), total - 1, total]:
        want = [p.id for p in stocked.list(flt, limit=40, offset=depth, order=order)]
        got = store_keyset.page_at(db, flt, order, depth, 40)
        assert got is not None and [p.id for p in got] == want, (depth, total)


def test_a_filter_the_scope_index_cannot_skip_is_left_to_the_offset_walk(
    stocked: MemoryService,
) -> None:
    db = stocked.store.db
    for query in (FactQuery(producer="user"), FactQuery(pinned=True), FactQuery(scope="session")):
        assert store_keyset.page_at(db, query.to_filter(MINE), "recent", 200, 40) is None
    assert store_keyset.page_at(db, PerceptFilter(min_weight=0.5), "recent", 200, 40) is None


def test_too_many_hidden_facts_are_left_to_the_offset_walk(
    stocked: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    hidden = stocked.count(PerceptFilter(scope="session", session_id=OTHER))
    db, here = stocked.store.db, FILTERS["here"]
    monkeypatch.setattr(store_keyset, "MAX_HIDDEN", hidden)
    assert store_keyset.page_at(db, here, "recent", 200, 40) is not None
    monkeypatch.setattr(store_keyset, "MAX_HIDDEN", hidden - 1)
    assert store_keyset.page_at(db, here, "recent", 200, 40) is None


@pytest.mark.parametrize("order", ["recent", "weight"])
def test_a_page_at_a_depth_reads_no_table_row_before_it(stocked: MemoryService, order: str) -> None:
    """The one OFFSET it runs walks the order's index alone (covering); the rest are
    keyset ranges and a count through the scope index."""
    db = stocked.store.db
    seen: list[str] = []
    db.conn.set_trace_callback(seen.append)
    try:
        got = store_keyset.page_at(db, FILTERS["here"], order, 400, 40)
    finally:
        db.conn.set_trace_callback(None)
    assert got is not None
    offsets = [s for s in seen if "OFFSET" in s]
    assert len(offsets) == 1
    plan = " ".join(str(r[3]) for r in db.conn.execute("EXPLAIN QUERY PLAN " + offsets[0]))
    assert "COVERING INDEX" in plan
    for sql in seen:
        if sql.startswith("SELECT"):
            rows = db.conn.execute("EXPLAIN QUERY PLAN " + sql).fetchall()
            assert not any("SCAN p" in str(r[3]) and "COVERING" not in str(r[3]) for r in rows), sql


def test_the_trace_sees_expanded_statements() -> None:
    """The test above reads the statements as SQLite traces them, parameters bound."""
    conn = sqlite3.connect(":memory:")
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    conn.execute("SELECT ? + 1", (41,))
    assert seen == ["SELECT 41 + 1"]
