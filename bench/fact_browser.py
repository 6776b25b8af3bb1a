"""Fact browser first paint with 100,000 facts (budget: ≤ 300 ms) next to baselines.

Measured in the same run, headless ``run_test``, medians over several launches:

* bare       — a Textual app with an Input, an empty DataTable and a Static (the widgets
               a browser needs, no data): what any app pays to get a first frame;
* browser    — ``FactBrowser`` (full mode) over a real ``MemoryService`` holding N facts;
* datatable  — the naive alternative: every fact added as a DataTable row (skipped in
               ``--quick`` and above 20,000 rows, where it takes tens of seconds).

"First paint" = from entering ``run_test`` to the first ``call_after_refresh`` callback,
i.e. the first frame has been composed.  Then some browser operations on the same store:
End (last page), a search (FTS count + first page), one coalesced live refresh.

Run: ``python bench/fact_browser.py`` (``--quick``: 10,000 facts, fewer launches).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import DataTable, Input, Static

from milk_tui.engine.bus import EventBus
from milk_tui.facade.facts import FactQuery, Facts
from milk_tui.memory.service import MemoryService
from milk_tui.memory.store import PerceptStore
from milk_tui.storage.db import Database
from milk_tui.testing.percept_fixtures import bulk_facts
from milk_tui.tui.facts import FactBrowser
from milk_tui.tui.facts.window import PAGE_SIZE, FactWindow

SESSION = "bench-session"
SIZE = (140, 45)
TARGET_MS = 300.0
"""Budget for the fact browser's first paint with 100,000 facts."""


class _Timed(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.painted_at = 0.0

    def on_mount(self) -> None:
        self.call_after_refresh(self._mark)

    def _mark(self) -> None:
        self.painted_at = time.perf_counter()


class BareApp(_Timed):
    def compose(self) -> ComposeResult:
        yield Input()
        yield DataTable()
        yield Static("")


class BrowserApp(_Timed):
    def __init__(self, memory: MemoryService) -> None:
        super().__init__()
        self.memory = memory

    def compose(self) -> ComposeResult:
        yield FactBrowser(Facts(self.memory), session_id=SESSION)


class NaiveTableApp(_Timed):
    def __init__(self, memory: MemoryService) -> None:
        super().__init__()
        self.memory = memory

    def compose(self) -> ComposeResult:
        yield Input()
        yield DataTable()
        yield Static("")

    def on_mount(self) -> None:
        t = self.query_one(DataTable)
        t.add_columns("★", "scope", "weight", "producer", "consumer", "content")
        rows = self.memory.list(limit=10**9, order="recent")
        t.add_rows([("★" if p.core else "", p.scope, f"{p.weight:.2f}", p.producer, p.consumer,
                     p.content) for p in rows])  # fmt: skip
        super().on_mount()


async def first_paint_ms(make: Any) -> float:
    app = make()
    t0 = time.perf_counter()
    async with app.run_test(size=SIZE) as pilot:
        while not app.painted_at:
            await pilot.pause(0.001)
        ms = (app.painted_at - t0) * 1000
    return ms


async def browser_ops(memory: MemoryService) -> dict[str, float]:
    out: dict[str, float] = {}
    app = BrowserApp(memory)
    async with app.run_test(size=SIZE) as pilot:
        while not app.painted_at:
            await pilot.pause(0.001)
        b = app.query_one(FactBrowser)
        t0 = time.perf_counter()
        await pilot.press("end")
        await pilot.pause()
        out["end key (last page), ms"] = (time.perf_counter() - t0) * 1000
        await pilot.press("home", "o")  # order by weight
        await pilot.pause()
        t0 = time.perf_counter()
        await pilot.press("end")
        await pilot.pause()
        out["end key, weight order, ms"] = (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        b.refresh_now()
        await pilot.pause()
        out["coalesced live refresh, ms"] = (time.perf_counter() - t0) * 1000
        # A jump (the scrollbar dragged to a depth): what painting the table's lines costs
        # with the page read in a worker (the table's way) and, as the baseline in this
        # run, read inline (on the painting thread).
        b.table.set_window(FactWindow(Facts(memory), FactQuery(), SESSION).load())
        for how in ("worker", "inline"):
            await pilot.press("home")
            frame = arrive = 0.0
            for k in range(1, 10):
                b.window.invalidate()
                if how == "inline":
                    b.window.defer = None
                t0 = time.perf_counter()
                b.table.cursor = b.window.total * k // 10
                for y in range(b.table.size.height):  # what painting the table asks for
                    b.table.render_line(y)
                frame = max(frame, (time.perf_counter() - t0) * 1000)
                while b.window.pending:
                    await pilot.pause(0.001)
                arrive = max(arrive, (time.perf_counter() - t0) * 1000)
                b.window.defer = b.table._fetch_later
            out[f"jump to a depth, page read {how}: worst frame, ms"] = frame
            if how == "worker":
                out["jump to a depth, page read in a worker: rows shown after, worst ms"] = arrive
    # A frame that shows rows the window has not cached waits for their page.  Scrolling
    # the whole store page by page (what a held PageDown does), the worst page is the
    # worst frame's data cost; a jump (the scrollbar dragged to a depth) is timed apart.
    for order in ("recent", "weight"):
        w = FactWindow(Facts(memory), FactQuery(order=order), SESSION).load()
        worst = 0.0
        for index in range(0, w.total, PAGE_SIZE):
            t0 = time.perf_counter()
            w.row(index)
            worst = max(worst, (time.perf_counter() - t0) * 1000)
        out[f"scroll all {w.total:,}: worst page ({order}), ms"] = worst
        jumps = FactWindow(Facts(memory), FactQuery(order=order), SESSION).load()
        worst = 0.0
        for k in range(1, 20):
            t0 = time.perf_counter()
            jumps.row(jumps.total * k // 20)
            worst = max(worst, (time.perf_counter() - t0) * 1000)
        out[f"jump to a depth: worst page ({order}), ms"] = worst
        t0 = time.perf_counter()
        w.recount()
        out[f"count shown ({order}), ms"] = (time.perf_counter() - t0) * 1000
    for text in ("cache", "tabs deploy"):
        t0 = time.perf_counter()
        w = FactWindow(Facts(memory), FactQuery(text=text), SESSION).load()
        out[f"search '{text}' ({w.total:,} hits) count+page, ms"] = (
            time.perf_counter() - t0
        ) * 1000
    return out


async def main(n: int, runs: int, naive: bool, home: Path | None = None) -> None:
    if home is not None:  # an existing store, e.g. bench/big_store.py's million facts
        db = Database(home / "milk.db")
        memory = MemoryService(PerceptStore(db), EventBus())
        n = memory.count()
        print(f"facts: {n:,} (the store in {home})")
    else:
        tmp = Path(tempfile.mkdtemp(prefix="milk-bench-"))
        db = Database(tmp / "milk.db")
        memory = MemoryService(PerceptStore(db), EventBus())
        t0 = time.perf_counter()
        bulk_facts(memory.store, n, session_id=SESSION)
        print(f"facts: {memory.count():,} (inserted in {time.perf_counter() - t0:.1f} s)")

    bare: list[float] = []
    browser: list[float] = []
    for _ in range(runs):  # alternate so drift hits both sides equally
        bare.append(await first_paint_ms(BareApp))
        browser.append(await first_paint_ms(lambda: BrowserApp(memory)))
    mb, mf = statistics.median(bare), statistics.median(browser)
    print(f"first paint, median of {runs}:")
    print(f"  bare app (Input + empty DataTable)   {mb:7.1f} ms")
    print(
        f"  FactBrowser over {n:,} facts      {mf:7.1f} ms   ratio {mf / mb:.2f}x bare"
        f"   target ≤ {TARGET_MS:.0f} ms: {'PASS' if mf <= TARGET_MS else 'FAIL'}"
    )
    print(f"  (first launch: bare {bare[0]:.1f} ms, browser {browser[0]:.1f} ms)")
    if naive:
        ms = await first_paint_ms(lambda: NaiveTableApp(memory))
        print(
            f"  naive DataTable with every row        {ms:7.1f} ms   ratio {ms / mf:.1f}x browser"
        )
    ops = await browser_ops(memory)
    for name, ms in ops.items():
        print(f"  {name:<42} {ms:7.1f}")
    worker = ops["jump to a depth, page read worker: worst frame, ms"]
    inline = ops["jump to a depth, page read inline: worst frame, ms"]
    print(f"  a jump's worst frame, worker ÷ inline: {worker / inline:.3f}x")
    db.close()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10,000 facts, 3 launches")
    ap.add_argument("--facts", type=int, default=0)
    ap.add_argument("--home", type=Path, help="browse this MILK_HOME's store instead of a new one")
    a = ap.parse_args()
    n = a.facts or (10_000 if a.quick else 100_000)
    naive = not a.quick and n <= 20_000 and a.home is None
    asyncio.run(main(n, 3 if a.quick else 7, naive=naive, home=a.home))
