"""The FTS shortcuts agree with the brute-force definitions they replace."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import milk_tui.memory.select as select_mod
import milk_tui.memory.store as store_mod
from milk_tui.memory.dedup import jaccard, min_shared, tokenize
from milk_tui.memory.service import MemoryService
from milk_tui.memory.store import PerceptFilter
from milk_tui.model.percept import Percept

WORDS = [f"w{i}" for i in range(12)]
_fact = st.lists(st.sampled_from(WORDS), min_size=1, max_size=7).map(" ".join)


def _brute_duplicate(mem: MemoryService, content: str, sid: str) -> int | None:
    mine = tokenize(content)
    if not mine:
        return None
    pool = sorted(mem.list(PerceptFilter(session_id=sid), limit=10_000),
                  key=lambda p: (p.scope == "session", p.id))  # fmt: skip
    best_id, best = None, 0.0
    for p in pool:
        j = jaccard(mine, tokenize(p.content))
        if j > best:
            best_id, best = p.id, j
    return best_id if best >= 0.6 else None


@pytest.mark.parametrize("budget", [0, 1_000_000])
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    facts=st.lists(st.tuples(_fact, st.sampled_from(["s1", "s2", ""])), max_size=25), probe=_fact
)
def test_duplicate_search_matches_brute_force(
    mem: MemoryService, monkeypatch, budget, facts, probe
) -> None:
    monkeypatch.setattr(store_mod, "CANDIDATE_ROWID_BUDGET", budget)
    with mem.store.db.transaction() as conn:
        conn.execute("DELETE FROM percepts")
        conn.execute("INSERT INTO percepts_fts (percepts_fts) VALUES ('delete-all')")
        conn.execute("DELETE FROM percept_terms")
    for content, sid in facts:  # insert without dedup so near-duplicates coexist
        with mem.store.db.transaction() as conn:
            mem.store.insert(conn, Percept(0, content, "primary", scope="session" if sid else "global",
                                           session_id=sid, weight=0.7))  # fmt: skip
    with mem.store.db.transaction() as conn:
        found = mem._find_duplicate(conn, probe, "s1")
    assert (found.id if found else None) == _brute_duplicate(mem, probe, "s1")


def test_min_shared() -> None:
    assert [min_shared(n) for n in (1, 2, 3, 5, 10)] == [1, 2, 2, 3, 6]


def test_rare_words_rank_first_and_common_only_matches_still_pass_the_gate(
    mem: MemoryService, monkeypatch
) -> None:
    monkeypatch.setattr(select_mod, "RARE_MATCH_BUDGET", 1)
    for i in range(6):
        mem.record(f"common thing{i} item{i}", "primary", session_id="s", weight=0.3 + i / 10)
    rare = mem.record("common zebra fact", "primary", session_id="s", weight=0.2)
    mem.record("unrelated other", "user", session_id="s")
    got = mem.select_for_prompt("common zebra", "primary", "s", max_count=0, max_bytes=0)
    assert got[0] == rare.content
    assert got[1:] == [f"common thing{i} item{i}" for i in reversed(range(6))]  # by weight
