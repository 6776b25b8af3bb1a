"""A live refresh (another writer added facts) costs the painting thread a kept count and the
page on screen, read by key, never an OFFSET walk; a search's refresh runs in a worker; the
End key reads the last pages by key.

Statements are seen through SQLite's trace callback, with the thread that ran each."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator

import pytest
from textual.widgets import Input

from milk_tui.memory.service import MemoryService
from milk_tui.storage.db import Database
from milk_tui.testing.percept_fixtures import bulk_facts
from milk_tui.testing.waits import until
from tui_facts.conftest import FIXED_NOW, Host

N = 3_000

Trace = list[tuple[int, str]]
INDEX = {"recent": "percepts_updated", "weight": "percepts_weight"}
WALK = re.compile(r"OFFSET [1-9]")
"""An OFFSET past the first row (the first page may be read as ``OFFSET 0``)."""


@pytest.fixture
def trace(db: Database) -> Iterator[Trace]:
    seen: Trace = []
    db.conn.set_trace_callback(lambda sql: seen.append((threading.get_ident(), sql)))
    yield seen
    db.conn.set_trace_callback(None)


def _reads(seen: Trace) -> list[str]:
    return [sql for _, sql in seen if sql.lstrip().upper().startswith("SELECT")]


async def test_a_live_refresh_at_the_top_reads_the_kept_count_and_the_page_on_screen(
    memory: MemoryService, session_id: str, trace: Trace
) -> None:
    bulk_facts(memory.store, N, session_id=session_id)
    app = Host(memory, session_id, clock=lambda: FIXED_NOW)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        memory.record("a fact another writer adds", session_id=session_id)
        await until(pilot, lambda: not app.browser.refresh_pending, what="the refresh")
        trace.clear()
        app.browser.refresh_now()
        reads = _reads(trace)
        assert [s for s in reads if "percept_counts" in s] == [reads[0]]  # kept, not counted
        pages = reads[1:]
        assert 1 <= len(pages) <= 2 and not any(WALK.search(s) for s in pages), pages
        assert all(s.startswith("SELECT p.id, p.content") for s in pages), pages
        assert app.browser.window.total == N + 1


async def test_a_live_refresh_deep_in_the_list_never_walks_to_it(
    memory: MemoryService, session_id: str, trace: Trace
) -> None:
    bulk_facts(memory.store, N, session_id=session_id)
    app = Host(memory, session_id, clock=lambda: FIXED_NOW)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        table = app.browser.table
        table.cursor = N // 2 + 5
        await until(pilot, lambda: table.current() is not None, what="the deep page")
        want = table.current().id
        trace.clear()
        app.browser.refresh_now()
        loop = [sql for tid, sql in trace if tid == threading.get_ident()]
        assert len(_reads([(0, s) for s in loop])) <= 2  # the kept count, the first page
        await until(pilot, lambda: table.current() is not None, what="the page reread")
        assert table.current().id == want
        walks = [s for s in _reads(trace) if WALK.search(s)]
        # one OFFSET, over the order's index alone (covering): no row read on the way
        assert len(walks) == 1 and walks[0].startswith("SELECT p.updated_at, p.id FROM"), walks


async def test_a_search_refresh_counts_and_ranks_in_a_worker(
    memory: MemoryService, session_id: str, trace: Trace
) -> None:
    bulk_facts(memory.store, N, session_id=session_id)
    app = Host(memory, session_id, clock=lambda: FIXED_NOW)
    async with app.run_test(size=(100, 30)) as pilot:
        app.browser.query_one("#fact-search", Input).value = "cache"
        app.browser.requery()
        await until(pilot, lambda: app.browser.window.query.text == "cache", what="the search")
        before = app.browser.window.total
        old = app.browser.window
        memory.record("cache the wheels between builds", session_id=session_id)
        await until(pilot, lambda: not app.browser.refresh_pending, what="the refresh")
        assert app.browser.window.total == before + 1
        trace.clear()
        app.browser.refresh_now()
        assert app.browser.refresh_pending  # until the worker's message lands
        assert not [sql for tid, sql in trace if tid == threading.get_ident()]
        assert app.browser.window is not old and app.browser.window.total == before + 1
        shown = app.browser.window
        await until(pilot, lambda: not app.browser.refresh_pending, what="the refresh")
        assert app.browser.window is not shown and app.browser.window.total == before + 1
        assert _reads(trace) and all(tid != threading.get_ident() for tid, _ in trace)


@pytest.mark.parametrize("order", ["recent", "weight"])
async def test_the_end_key_reads_the_last_pages_by_key_in_index_order(
    memory: MemoryService, session_id: str, trace: Trace, db: Database, order: str
) -> None:
    """End: the last page is the first of the reversed order, the one before it from its
    first key; no OFFSET, and no sort of the facts (each read follows the order's index)."""
    bulk_facts(memory.store, N, session_id=session_id)
    app = Host(memory, session_id, clock=lambda: FIXED_NOW)
    async with app.run_test(size=(100, 30)) as pilot:
        app.browser.set_filters(order=order)
        await pilot.pause()
        trace.clear()
        await pilot.press("end")
        await until(pilot, lambda: app.browser.table.current() is not None, what="the end")
        assert app.browser.table.cursor == N - 1
        reads = _reads(trace)
        assert reads and not any("OFFSET" in s for s in reads), reads
        for sql in reads:
            plan = " ".join(str(r[3]) for r in db.conn.execute("EXPLAIN QUERY PLAN " + sql))
            assert "TEMP B-TREE" not in plan and INDEX[order] in plan, (sql, plan)
