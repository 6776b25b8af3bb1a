"""Percept store + service: recording, dedup, selection filters, edits/undo, consolidation."""

from __future__ import annotations

import pytest

from milk_tui.memory.consolidate import PRUNE_THRESHOLD
from milk_tui.memory.service import MemoryService
from milk_tui.memory.store import PerceptFilter

S = "sess-1"


def test_initial_weights_and_scopes(mem: MemoryService) -> None:
    u = mem.record("user likes dark themes", "user", session_id=S)
    a = mem.record("project builds with bazel", "primary", session_id=S)
    s = mem.record("system noted repository layout", "system", session_id=S)
    c = mem.record("deploys go through staging", "user", session_id=S, core=True)
    g = mem.record("nothing ties this to a session", "escalation")
    assert (u.weight, a.weight, s.weight, c.weight, g.weight) == (0.9, 0.7, 0.4, 1.0, 0.7)
    assert (u.scope, c.scope, g.scope) == ("session", "global", "global")
    assert mem.get(u.id) == u


def test_record_publishes_and_strips(mem: MemoryService, events: list) -> None:
    assert mem.record("   ") is None
    p = mem.record("  spaced fact about widgets  ", "primary", session_id=S)
    assert p.content == "spaced fact about widgets"
    assert [e.type for e in events] == ["percept_recorded"]
    assert events[0].percept_id == p.id and events[0].reinforced is False


def test_near_duplicate_reinforces(mem: MemoryService, events: list) -> None:
    p = mem.record("The user prefers pytest over unittest for tests", "primary", session_id=S)
    q = mem.record("user prefers pytest over unittest", "escalation", session_id=S)
    assert q.id == p.id
    assert q.weight == pytest.approx(0.8) and q.updated_at >= p.updated_at
    assert mem.count() == 1 and events[-1].reinforced is True
    r = mem.record("user prefers nose over unittest", "primary", session_id=S)
    assert r.id != p.id  # {user, prefers, unittest} shared of 6 distinct tokens: 0.5 < 0.6
    assert mem.count() == 2


def test_duplicate_search_ignores_other_sessions(mem: MemoryService) -> None:
    p = mem.record("api tokens rotate every monday", "primary", session_id="other")
    q = mem.record("api tokens rotate every monday", "primary", session_id=S)
    assert q.id != p.id
    g = mem.record("api tokens rotate every monday", "primary", session_id=S)
    assert g.id == q.id


def test_stopword_only_content_is_never_duplicate(mem: MemoryService) -> None:
    a = mem.record("it is as it was", "user", session_id=S)
    b = mem.record("it is as it was", "user", session_id=S)
    assert a.id != b.id


def test_consumer_hints_with_llama_and_deepseek(mem: MemoryService) -> None:
    p = mem.record_from_agent(
        "@llama: run ruff before committing", "escalation", S, 3, "llama", "deepseek"
    )
    e = mem.record_from_agent(
        "@deepseek: the CI box has 2 cores", "primary", S, 3, "llama", "deepseek"
    )
    a = mem.record_from_agent(
        "@local: shared fact about caches", "primary", S, 3, "llama", "deepseek"
    )
    assert (p.consumer, p.content, p.producer, p.turn_index) == (
        "primary",
        "run ruff before committing",
        "escalation",
        3,
    )
    assert (e.consumer, e.content) == ("escalation", "the CI box has 2 cores")
    assert (a.consumer, a.content) == ("all", "@local: shared fact about caches")


def _seed_roles(mem: MemoryService) -> dict[str, int]:
    ids = {}
    for producer in ("user", "primary", "escalation"):
        for consumer in ("all", "primary", "escalation"):
            c = f"w{len(ids)}"
            p = mem.record(f"deploy apple{c} pear{c} {c}", producer, consumer, session_id=S)
            ids[(producer, consumer)] = p.content
    return ids


def test_selection_role_filter(mem: MemoryService) -> None:
    ids = _seed_roles(mem)
    esc = set(mem.select_for_prompt("deploy", "escalation", S, max_count=0, max_bytes=0))
    pri = set(mem.select_for_prompt("deploy", "primary", S, max_count=0, max_bytes=0))
    want_esc = {c for (pr, co), c in ids.items() if pr != "escalation" and co != "primary"}
    want_pri = {c for (pr, co), c in ids.items() if co != "escalation"}
    assert esc == want_esc and pri == want_pri
    assert ids[("primary", "all")] in pri  # primary-produced facts come back to the primary


def test_selection_gate_visibility_and_caps(mem: MemoryService) -> None:
    mem.record("python version is 3.11", "user", session_id=S)
    mem.record("python packaging uses uv", "primary", session_id=S)
    mem.record("unrelated fact about coffee", "user", session_id=S)
    mem.record("python secret from another session", "user", session_id="other")
    got = mem.select_for_prompt("which python?", "primary", S)
    assert set(got) == {"python version is 3.11", "python packaging uses uv"}
    assert got[0] == "python version is 3.11"  # equal bm25, higher weight first
    assert len(mem.select_for_prompt("!!", "primary", S)) == 3  # no tokens → everything passes
    ungated = mem.select_for_prompt("python", "primary", S, relevance_gate=False)
    assert ungated[:2] == got and ungated[2] == "unrelated fact about coffee"
    assert mem.select_for_prompt("python", "primary", S, max_count=1) == got[:1]
    n = len("python version is 3.11")
    assert mem.select_for_prompt("python", "primary", S, max_bytes=n + 3) == got[:1]


def test_byte_cap_stops_at_first_overflow(mem: MemoryService) -> None:
    mem.record("alpha " + "x" * 50, "user", session_id=S)
    mem.record("alpha short", "primary", session_id=S)
    got = mem.select_for_prompt("alpha", "primary", S, max_bytes=20)
    assert got == []  # the first (heavier) fact overflows; no skipping ahead to smaller ones


def test_format_block(mem: MemoryService) -> None:
    assert mem.format_block([]) == ""
    assert mem.format_block(["a", "b"]) == "[Remembered facts]\n- a\n- b\n"


def test_edit_and_undo(mem: MemoryService, events: list) -> None:
    p = mem.record("the staging host is alpha", "user", session_id=S)
    mem.edit(p.id, content="the staging host is beta", consumer="escalation")
    assert mem.search("beta")[0].id == p.id and mem.search("alpha") == []
    back = mem.undo_last_edit()
    assert (back.content, back.consumer, back.updated_at) == (p.content, p.consumer, p.updated_at)
    assert mem.search("alpha")[0].id == p.id
    assert mem.undo_last_edit() is None
    assert [e.type for e in events] == ["percept_recorded", "percept_updated", "percept_updated"]


def test_pin_delete_and_undo_delete(mem: MemoryService) -> None:
    p = mem.record("release on fridays is forbidden", "primary", session_id=S)
    pinned = mem.pin(p.id)
    assert (pinned.core, pinned.scope, pinned.weight) == (True, "global", 1.0)
    assert mem.delete(p.id) and mem.get(p.id) is None and not mem.delete(p.id)
    assert mem.undo_last_edit(p.id).core is True
    assert mem.undo_last_edit(p.id) == p  # unpin restores scope and weight too
    assert [h["action"] for h in mem.history(p.id)] == []


def test_list_count_search_filters(mem: MemoryService) -> None:
    for i in range(30):
        mem.record(
            f"item{i} alpha{i} beta{i} topic{i % 3}", "user" if i % 2 else "primary", session_id=S
        )
    mem.record("global fact topic0", "user", core=True)
    assert mem.count() == 31
    assert mem.count(PerceptFilter(scope="global")) == 1
    assert mem.count(PerceptFilter(session_id=S)) == 31
    assert mem.count(PerceptFilter(scope="session", session_id="nope")) == 0
    assert mem.count(PerceptFilter(producer="user")) == 16
    page1 = mem.list(limit=10, offset=0, order="id")
    page2 = mem.list(limit=10, offset=10, order="id")
    assert [p.id for p in page1 + page2] == sorted({p.id for p in page1 + page2})
    for order, key in (
        ("weight", lambda p: (-p.weight, -p.id)),
        ("recent", lambda p: (-p.updated_at, -p.id)),
    ):
        for flt in (
            None,
            PerceptFilter(session_id=S),
            PerceptFilter(scope="session", session_id=S),
        ):
            rows = mem.list(flt, limit=100, order=order)
            assert rows == sorted(rows, key=key) and len(rows) == mem.count(flt)
    hits = mem.search("topic1")
    assert len(hits) == 10 and mem.search_count("topic1") == 10
    assert mem.search("topi", PerceptFilter(scope="global"))[0].core  # prefix search


# ----- consolidation: the exact weights the thresholds produce -------------------------


def _weights_after(mem: MemoryService, w: float, passes: int) -> list:
    tag = str(w).replace(".", "")
    p = mem.record(f"probe{tag} sample{tag} value{tag}", "primary", session_id=S, weight=w)
    seen = []
    for _ in range(passes):
        mem.consolidate(S)
        q = mem.get(p.id)
        seen.append(None if q is None else (q.weight, q.scope))
    return seen


def test_user_fact_promoted_on_first_pass(mem: MemoryService) -> None:
    p = mem.record("the user is called ada", "user", session_id=S)
    rep = mem.consolidate(S)
    assert rep.promoted == [p.id]
    q = mem.get(p.id)
    assert (q.weight, q.scope, q.core) == (0.9 - 0.1, "global", False)


def test_agent_fact_pruned_on_sixth_pass(mem: MemoryService) -> None:
    seen = _weights_after(mem, 0.7, 6)
    assert [s[0] if s else None for s in seen[:5]] == [
        0.7 - 0.1,
        0.7 - 0.1 - 0.1,
        0.7 - 0.1 - 0.1 - 0.1,
        0.30000000000000004,
        0.20000000000000004,
    ]
    assert seen[5] is None


def test_system_fact_pruned_on_third_pass(mem: MemoryService) -> None:
    seen = _weights_after(mem, 0.4, 3)
    assert seen[:2] == [(0.30000000000000004, "session"), (0.20000000000000004, "session")]
    assert seen[2] is None


def test_float_pins(mem: MemoryService) -> None:
    assert _weights_after(mem, 0.30, 1) == [None]  # 0.19999999999999998 ≤ 0.2
    assert _weights_after(mem, 0.91, 1) == [(0.81, "global")]
    assert _weights_after(mem, 0.85, 1) == [(0.75, "session")]
    assert PRUNE_THRESHOLD == 0.2


def test_consolidation_scope(mem: MemoryService, events: list) -> None:
    core = mem.record("pinned rule", "user", session_id=S, core=True)
    other = mem.record("other session fact", "primary", session_id="other")
    glob = mem.record("global non core", "primary", session_id=S, scope="global", weight=0.21)
    mem.consolidate(S)
    assert mem.get(core.id).weight == 1.0
    assert mem.get(other.id).weight == 0.7
    assert mem.get(glob.id).weight == 0.21
    assert mem.consolidate("").summary() == "decayed 0, pruned 0, promoted 0, capped 0"


def test_global_cap_never_drops_pinned(mem: MemoryService) -> None:
    pins = [mem.record(f"pinned {w}", "user", core=True).id for w in ("one", "two", "three")]
    low = mem.record("low weight global", "primary", scope="global", weight=0.3)
    mid = mem.record("mid weight global", "primary", scope="global", weight=0.5)
    rep = mem.consolidate("", store_max=2)
    assert rep.capped == [low.id, mid.id]
    assert all(mem.get(i) for i in pins)


def test_hint_without_fact_records_nothing(mem: MemoryService) -> None:
    assert mem.record_from_agent("@llama:", "escalation", S, 1, "llama", "deepseek") is None
    assert mem.count() == 0


def test_empty_consumer_means_all(mem: MemoryService) -> None:
    assert mem.record("shared by both agents", "primary", "", session_id=S).consumer == "all"
