"""The browser's data side without a screen: search syntax, filters, paging, validation."""

from __future__ import annotations

from milk_tui.facade.facts import FactQuery, Facts
from milk_tui.memory.service import MemoryService
from milk_tui.testing.percept_fixtures import bulk_facts
from milk_tui.tui.facts.edit_modal import MAX_CONTENT_BYTES, validate
from milk_tui.tui.facts.window import (
    MAX_CACHED_PAGES,
    PAGE_SIZE,
    FactWindow,
    parse_search,
)


def test_parse_search_splits_qualifiers_from_words() -> None:
    q, errors = parse_search(
        'scope:global by:user for:primary is:pinned "tabs over" spaces', FactQuery(order="weight")
    )
    assert errors == []
    assert (q.scope, q.producer, q.consumer, q.pinned, q.order) == (
        "global",
        "user",
        "primary",
        True,
        "weight",
    )
    assert q.text == "tabs over spaces"


def test_parse_search_reports_unknown_values_and_keeps_plain_colons() -> None:
    q, errors = parse_search("by:robot note:this", FactQuery())
    assert errors == ["by: expects one of user, primary, escalation, system"]
    assert q.producer is None and q.text == "note:this"


def test_query_filter_scopes(session_id: str) -> None:
    here = FactQuery().to_filter(session_id)
    assert (here.scope, here.session_id) == (None, session_id)
    mine = FactQuery(scope="session").to_filter(session_id)
    assert (mine.scope, mine.session_id) == ("session", session_id)
    assert FactQuery(scope="global").to_filter(session_id).scope == "global"
    every = FactQuery(scope="all").to_filter(session_id)
    assert (every.scope, every.session_id) == (None, None)
    # no current session: "visible here" means everything
    assert FactQuery().to_filter(None).session_id is None


def test_window_pages_on_demand_and_bounds_its_cache(
    memory: MemoryService, session_id: str
) -> None:
    bulk_facts(memory.store, 2_000, session_id=session_id)
    w = FactWindow(Facts(memory), FactQuery(scope="all", order="id"), session_id).load()
    assert w.total == 2_000 and w.queries == 2 and list(w.pages) == [0]
    assert w.row(0).content.endswith("#0")
    assert w.row(1_999).content.endswith("#1999")
    assert w.row(2_000) is None and w.row(-1) is None
    for i in range(0, 2_000, PAGE_SIZE):
        assert w.row(i) is not None
    assert len(w.pages) <= MAX_CACHED_PAGES
    before = w.queries
    assert w.row(1_999) is not None and w.queries == before  # cached: no query


def test_window_search_uses_fts_and_counts(memory: MemoryService, session_id: str) -> None:
    memory.record("the build server is called hopper", session_id=session_id)
    memory.record("prefers tabs over spaces", session_id=session_id)
    w = FactWindow(Facts(memory), FactQuery(text="hopp"), session_id).load()
    assert w.total == 1 and "hopper" in w.row(0).content


def test_window_patch_and_cached_index(memory: MemoryService, session_id: str) -> None:
    a = memory.record("alpha fact one", session_id=session_id)
    memory.record("beta fact two", session_id=session_id)
    w = FactWindow(Facts(memory), FactQuery(order="id"), session_id).load()
    assert w.cached_index(a.id) == 0
    edited = memory.edit(a.id, content="alpha fact edited")
    assert w.patch(edited) and w.row(0).content == "alpha fact edited"
    assert w.cached_index(999_999) is None


def test_validate_rules() -> None:
    d, errors = validate("  a  fact\nover lines ", "primary", False, "0.5", "session", "s1")
    assert errors == [] and d.content == "a fact over lines" and d.weight == 0.5
    _, errors = validate("   ", "all", False, "", "session", "s1")
    assert errors == ["content: a fact cannot be empty"]
    _, errors = validate("x", "all", False, "heavy", "session", "s1")
    assert errors == ["weight: 'heavy' is not a number (0.00 – 1.00)"]
    _, errors = validate("x", "all", False, "1.5", "session", "s1")
    assert errors == ["weight: 1.5 is outside 0.00 – 1.00"]
    _, errors = validate("x", "all", False, "", "session", None)
    assert errors == ["scope: there is no current session; use global"]
    _, errors = validate("é" * MAX_CONTENT_BYTES, "all", False, "", "global", None)
    assert errors and errors[0].startswith("content: 4000 bytes")
    d, errors = validate("pinned one", "all", True, "", "session", None)
    assert errors == [] and d.scope == "global" and d.core and d.weight is None


def test_compact_cells_fit_their_columns() -> None:
    from milk_tui.model.percept import Percept
    from milk_tui.tui.facts.table import COMPACT_COLUMNS, age, cell

    widths = {c.key: c.width for c in COMPACT_COLUMNS if c.width}
    for w, shown in ((1.0, "1.0"), (0.996, "1.0"), (0.72, ".72"), (0.0, ".00")):
        p = Percept(id=1, content="x", producer="user", weight=w, core=w == 1.0)
        assert cell(p, "weight", True, 0) == shown
        assert all(len(cell(p, k, True, 0)) <= n for k, n in widths.items())
    assert [age(s) for s in (5, 65, 7200, 90000)] == ["5s", "1m", "2h", "1d"]
