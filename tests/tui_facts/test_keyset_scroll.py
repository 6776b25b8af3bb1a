"""Scrolling the fact browser through a few thousand facts pages from the neighbour page
(keyset), not by OFFSET, and shows every fact once, in the order the store lists them."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from textual.widgets import Static
from tui.conftest import until

from milk_tui.facade.facts import FactQuery, Facts
from milk_tui.memory.service import MemoryService
from milk_tui.model.percept import Percept
from milk_tui.testing.percept_fixtures import bulk_facts
from milk_tui.tui.facts.window import PAGE_SIZE, FactWindow
from tui_facts.conftest import FIXED_NOW, Host

N = 3_000


@pytest.mark.parametrize("order", ["recent", "weight", "id"])
def test_walking_down_and_up_keys_each_page_from_its_neighbour(
    memory: MemoryService, session_id: str, order: str
) -> None:
    bulk_facts(memory.store, N, session_id=session_id)
    q = FactQuery(order=order)
    want = [p.id for p in memory.list(q.to_filter(session_id), limit=N, order=order)]
    assert len(want) == N
    down = FactWindow(Facts(memory), q, session_id).load()
    assert [r.id for i in range(N) if (r := down.row(i))] == want
    assert down.offset_fetches == 1  # the first page only
    up = FactWindow(Facts(memory), q, session_id).load(first_rows=0)
    assert [r.id for i in reversed(range(N)) if (r := up.row(i))] == want[::-1]
    assert up.offset_fetches == 0  # the last page comes from the end, the rest from it


async def test_scrolling_to_the_end_shows_every_fact_and_the_count(
    memory: MemoryService, session_id: str
) -> None:
    bulk_facts(memory.store, N, session_id=session_id)
    want = [p.id for p in memory.list(FactQuery().to_filter(session_id), limit=N, order="recent")]
    app = Host(memory, session_id, clock=lambda: FIXED_NOW)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert str(app.browser.query_one("#fact-status", Static).render()) == f"{N:,} facts"
        table, w = app.browser.table, app.browser.window
        seen = [table.current().id]
        while table.cursor < N - 1:
            await pilot.press("pagedown")
            rows = range(len(seen), table.cursor + 1)
            seen += [r.id for i in rows if (r := w.row(i))]
        await pilot.pause()
        assert seen == want and table.current().id == want[-1]
        assert w.offset_fetches == 1 and w.queries <= N // PAGE_SIZE + 3


class _GatedFacts(Facts):
    """The real ``Facts``, with each read by position held until the test lets it go: the
    stand-in for a read at depth in a large store (an OFFSET walk: hundreds of ms; the
    order's index alone: ~12 ms)."""

    def __init__(self, memory: MemoryService) -> None:
        super().__init__(memory)
        self.gate = threading.Event()
        self.walks = 0

    def page(self, query: Any, session_id: Any, offset: int, limit: int) -> list[Percept]:
        self.walks += 1
        if offset:  # a first page, read by a load, passes
            assert self.gate.wait(30), "the gate was never opened"
        return super().page(query, session_id, offset, limit)

    def page_at(self, query: Any, session_id: Any, depth: int, limit: int) -> list[Percept] | None:
        assert self.gate.wait(30), "the gate was never opened"
        return super().page_at(query, session_id, depth, limit)


async def test_a_jump_deep_never_holds_the_screen_its_rows_come_when_read(
    memory: MemoryService, session_id: str
) -> None:
    bulk_facts(memory.store, N, session_id=session_id)
    want = [p.id for p in memory.list(FactQuery().to_filter(session_id), limit=N, order="recent")]
    facts = _GatedFacts(memory)
    app = Host(memory, session_id, clock=lambda: FIXED_NOW, facts=facts)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        table, w = app.browser.table, app.browser.window
        deep = N // 2 + 5  # no cached neighbour there: only a walk by position reaches it
        table.cursor = deep
        await pilot.pause()
        # the walk is held, and the app still paints and takes keys meanwhile
        assert w.is_pending(deep) and table.current() is None
        assert "…" in table.render_line(1).text
        await pilot.press("down")
        assert table.cursor == deep + 1
        facts.gate.set()
        await until(pilot, lambda: table.current() is not None, what="the deep page")
        assert table.current().id == want[deep + 1]
        await until(pilot, lambda: not w.pending, what="every page on screen")
        # one walk: the first page the screen spans; the next from its last key
        assert w.offset_fetches == 1 + 1
        seen = [r.id for i in range(deep - 40, deep + 10) if (r := w.row(i))]
        assert seen == want[deep - 40 : deep + 10]
        await pilot.press("pagedown")  # from there on, the neighbours' keys
        assert table.current().id == want[table.cursor] and w.offset_fetches == 2


async def test_a_jump_in_a_new_query_while_an_old_page_is_read_still_arrives(
    memory: MemoryService, session_id: str
) -> None:
    bulk_facts(memory.store, N, session_id=session_id)
    facts = _GatedFacts(memory)
    app = Host(memory, session_id, clock=lambda: FIXED_NOW, facts=facts)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        table = app.browser.table
        table.cursor = N // 2 + 5  # its walk is held at the gate
        await pilot.pause()
        app.browser.set_filters(order="weight")  # a new window while that page is read
        await pilot.pause()
        deep = N // 3
        table.cursor = deep
        await pilot.pause()
        w = app.browser.window
        assert w.is_pending(deep)
        facts.gate.set()
        await until(pilot, lambda: not w.pending, what="the new window's pages")
        want = [p.id for p in memory.list(FactQuery(order="weight").to_filter(session_id),
                                          limit=N, order="weight")]  # fmt: skip
        assert table.current() is not None and table.current().id == want[deep]


@pytest.mark.parametrize("order", ["recent", "weight", "id"])
def test_a_jump_reads_its_page_from_the_order_index_not_an_offset_walk(
    memory: MemoryService, session_id: str, order: str
) -> None:
    bulk_facts(memory.store, N, session_id=session_id)
    bulk_facts(memory.store, N // 10, session_id="another session", seed=3)  # hidden here
    q = FactQuery(order=order)
    want = [p.id for p in memory.list(q.to_filter(session_id), limit=2 * N, order=order)]
    w = FactWindow(Facts(memory), q, session_id).load()
    for deep in (N // 2 + 5, N - 7, 1234):
        w.invalidate()
        assert w.row(deep).id == want[deep]
    assert w.offset_fetches == 1 + 3 and w.walks == 0  # the first page, then the jumps
    by_user = FactWindow(Facts(memory), FactQuery(order=order, producer="user"), session_id)
    by_user.load().row(by_user.total // 2)
    assert by_user.walks == 1  # a filter the scope index cannot skip: the OFFSET walk
