"""Search order on a real store and a real FTS5 index.

The store ranks a bounded candidate set in Python (``memory/fact_search.py``); here that
ranking is held to FTS5's own ``bm25() × (0.05 + weight)`` over every match, on a corpus
where lengths, weights and word rarity all differ, and the part past the candidates is held
to its documented order (newest first) with every match reachable by paging.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from milk_tui.memory import fact_search
from milk_tui.memory.store import PerceptFilter, PerceptStore
from milk_tui.storage.db import Database
from milk_tui.testing.percept_fixtures import bulk_facts


@pytest.fixture
def store(tmp_path: Path) -> PerceptStore:
    db = Database(tmp_path / "milk.db")
    s = PerceptStore(db)
    bulk_facts(s, 3000, session_id="s1")
    return s


def _fts5_order(store: PerceptStore, match: str, where: str = "1") -> list[int]:
    """Every match ranked by FTS5's own bm25 (the ranking searches had before)."""
    rows = store.db.query(
        "SELECT p.id FROM percepts_fts f JOIN percepts p ON p.id = f.rowid "
        f"WHERE percepts_fts MATCH ? AND {where} "
        "ORDER BY bm25(percepts_fts) * (0.05 + p.weight), p.id DESC",
        (match,),
    )
    return [r[0] for r in rows]


@pytest.mark.parametrize(
    "query,match",
    [
        ("llama budget", '"llama" AND "budget"'),
        ("weekly notes theme", '"weekly" AND "notes" AND "theme"'),
        ("claude", '"claude"'),
        ("claud", '"claude"'),  # a prefix of one stored word ranks as that word
    ],
)
def test_first_pages_rank_as_fts5_bm25_times_weight(
    store: PerceptStore, query: str, match: str
) -> None:
    want = _fts5_order(store, match)
    assert 20 < len(want) <= fact_search.CANDIDATES  # a realistic page's worth, all ranked
    got, total = store.search(query, PerceptFilter(), limit=20)
    assert total == len(want)
    assert [p.id for p in got] == want[:20]
    page2, _ = store.search(query, PerceptFilter(), limit=20, offset=20, count=False)
    assert [p.id for p in page2] == want[20:40]


def test_a_filter_ranks_within_what_it_keeps(store: PerceptStore) -> None:
    flt = PerceptFilter(scope="global")
    want = _fts5_order(store, '"deploy" AND "cache"', "p.scope = 'global'")
    got, total = store.search("deploy cache", flt, limit=15)
    assert total == len(want) and [p.id for p in got] == want[:15]


def test_weight_and_length_order_the_page(tmp_path: Path) -> None:
    """The same words: the heavier fact first, then the shorter of two equal weights."""
    from milk_tui.model.percept import Percept

    s = PerceptStore(Database(tmp_path / "milk.db"))
    with s.db.transaction() as conn:
        for content, w in [
            ("kafka router lag grows at night on the ingest hosts", 0.5),
            ("kafka router", 0.5),
            ("kafka router lag alert", 0.95),
            ("unrelated note about coffee", 1.0),
        ]:
            s.insert(conn, Percept(id=0, content=content, producer="user", weight=w,
                                   created_at=1.0, updated_at=1.0, scope="global"))  # fmt: skip
    got, total = s.search("kafka rout", PerceptFilter(), limit=10)
    assert [p.content for p in got] == [
        "kafka router lag alert",
        "kafka router",
        "kafka router lag grows at night on the ingest hosts",
    ]
    assert total == 3
    assert s.search("kafka zebra", PerceptFilter())[0] == []


def test_past_the_candidates_older_matches_follow_newest_first(
    store: PerceptStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fact_search, "CANDIDATES", 60)
    every = _fts5_order(store, '"python"')
    newest = sorted(every, reverse=True)
    assert len(every) > 200
    ranked = [i for i in every if i in set(newest[:60])]
    seen: list[int] = []
    for offset in range(0, len(every) + 50, 45):  # pages that straddle the boundary too
        page, total = store.search("python", PerceptFilter(), limit=45, offset=offset)
        assert total == len(every)
        seen += [p.id for p in page]
    assert seen[:60] == ranked
    assert seen[60:] == newest[60:]
    assert sorted(seen) == sorted(every)  # every match exactly once
