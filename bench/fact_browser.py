"""Fact browser first paint with 100,000 facts (budget: ≤ 300 ms) next to baselines.

Measured in the same run, headless ``run_test``, medians over several launches:

* bare       — a Textual app with an Input, an empty DataTable and a Static (the widgets
               a browser needs, no data): what any app pays to get a first frame;
* browser    — ``FactBrowser`` (full mode) over a real ``MemoryService`` holding N facts;
* datatable  — the naive alternative: every fact added as a DataTable row (skipped in
               ``--quick`` and above 20,000 rows, where it takes tens of seconds).

"First paint" = from entering ``run_test`` to the first ``call_after_refresh`` callback,
i.e. the first frame has been composed.  Then the browser's operations on the same store,
the table focused: End (last page) in the recent and weight orders, a coalesced live
refresh (at the top, with the cursor at the middle, during a search), a jump to each tenth
(the scrollbar dragged).  Each is reported as its worst event-loop slice (wall and CPU: no
frame is painted while one runs), as a ratio to a Down key's in the same run (the
baseline), and as the time until its rows are on screen.  Then reads timed inline: every
page scrolled through, a jump's page next to the same page read by an OFFSET walk (the
baseline), the count, a search.

Run: ``python bench/fact_browser.py`` (``--quick``: 10,000 facts, fewer launches;
``--home DIR``: an existing store, e.g. ``bench/big_store.py``'s million facts — opened
read and write: give it a copy).  Against another checkout's code:
``PYTHONPATH=<checkout> python bench/fact_browser.py …``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
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
FRAME_MS = 16.0
"""A frame at 60 Hz: no operation's loop slice may be longer."""


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


class Slices:
    """The event loop's callbacks timed one by one (wall and the loop thread's CPU): no frame
    is painted while one runs, so the longest is the worst wait a key or a frame had."""

    def __init__(self) -> None:
        self.on = False
        self.worst_wall = self.worst_cpu = self.w_start = self.c_start = 0.0
        self.full_gcs = 0
        """Full (generation-2) collections while measuring: each one a long slice of its own."""
        run = asyncio.events.Handle._run
        meter = self

        def collected(phase: str, info: dict[str, int]) -> None:
            if meter.on and phase == "start" and info.get("generation") == 2:
                meter.full_gcs += 1

        gc.callbacks.append(collected)

        def timed(handle: asyncio.Handle) -> None:
            w0, c0 = time.perf_counter(), time.thread_time()
            try:
                run(handle)
            finally:  # the bench's own step that starts the meter counts from ``start``
                if meter.on:
                    wall = time.perf_counter() - max(w0, meter.w_start)
                    cpu = time.thread_time() - max(c0, meter.c_start)
                    meter.worst_wall = max(meter.worst_wall, wall)
                    meter.worst_cpu = max(meter.worst_cpu, cpu)

        asyncio.events.Handle._run = timed  # type: ignore[method-assign,assignment]  # benchmarks only

    def start(self) -> float:
        self.on, self.worst_wall, self.worst_cpu, self.full_gcs = True, 0.0, 0.0, 0
        self.c_start = time.thread_time()
        self.w_start = time.perf_counter()
        return self.w_start

    def stop(self) -> tuple[float, float, int]:
        self.on = False
        return self.worst_wall * 1000, self.worst_cpu * 1000, self.full_gcs


SLICES: Slices | None = None


async def settle(pilot: Any, b: FactBrowser) -> None:
    """Until the rows on screen are read (a worker's page, a search's refresh)."""
    while b.window.pending or b.refresh_pending or b.table.current() is None:
        await pilot.pause(0.001)


async def measured(pilot: Any, b: FactBrowser, act: Any) -> tuple[float, ...]:
    """(worst slice wall, its CPU, rows ready to paint, act + pause wall, full collections)
    of ``act``, times in ms.
    "Rows ready" polls every millisecond from the end of ``act`` (a key press itself waits
    for the app to idle: ~40 ms of Pilot's)."""
    assert SLICES is not None
    t0 = SLICES.start()
    await act()
    await settle(pilot, b)
    shown = (time.perf_counter() - t0) * 1000
    await pilot.pause()
    paused = (time.perf_counter() - t0) * 1000
    wall, cpu, gcs = SLICES.stop()
    return wall, cpu, shown, paused, gcs


async def browser_ops(memory: MemoryService) -> dict[str, tuple[float, ...]]:
    """Each operation: (worst loop slice, its CPU, rows shown after, press + pause wall), ms."""
    out: dict[str, tuple[float, ...]] = {}
    app = BrowserApp(memory)
    async with app.run_test(size=SIZE) as pilot:
        while not app.painted_at:
            await pilot.pause(0.001)
        b = app.query_one(FactBrowser)
        b.focus_table()  # the keys go to the table, not the search box
        await pilot.pause()
        gc.collect()
        gc.freeze()  # as the app does after its first main frame (tui/app.py)

        async def run(name: str, act: Any) -> None:
            out[name] = await measured(pilot, b, act)

        await run("a Down key (baseline)", lambda: pilot.press("down"))
        await run("End (last page), recent", lambda: pilot.press("end"))
        await run("Home", lambda: pilot.press("home"))
        await run("order → weight", lambda: pilot.press("o"))
        await run("End (last page), weight", lambda: pilot.press("end"))
        await pilot.press("home", "o", "o")  # back to recent
        await settle(pilot, b)

        async def refresh() -> None:
            b.refresh_now()

        await run("live refresh, at the top", refresh)
        b.table.cursor = b.window.total // 2
        await settle(pilot, b)
        await run("live refresh, the middle", refresh)
        worst: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0)
        for k in range(1, 10):  # the scrollbar dragged to each tenth

            async def jump(k: int = k) -> None:
                b.table.cursor = b.window.total * k // 10

            got = await measured(pilot, b, jump)
            worst = tuple(map(max, worst, got))
        out["jump to each tenth (worst)"] = worst

        async def home_mid_jump() -> None:
            # Home pressed while a jump's page is being read: the first page is read on
            # the painting thread, and the database waits for the worker's statement.
            b.window.invalidate()
            b.table.cursor = b.window.total // 2 + 3 * PAGE_SIZE
            await pilot.pause(0.003)
            b.table.cursor = 0

        await run("Home while a jump's page is read", home_mid_jump)
        b.query_one("#fact-search", Input).value = "cache"
        b.requery()
        while b.window.query.text != "cache":
            await pilot.pause(0.001)
        await settle(pilot, b)
        await run("live refresh, a search 'cache'", refresh)
    return out


def walks(memory: MemoryService) -> dict[str, float]:
    """Window-level reads timed inline: scrolling page by page, a jump's page (the old way,
    an OFFSET walk, as the baseline in this run), the count."""
    out: dict[str, float] = {}
    facts = Facts(memory)
    for order in ("recent", "weight", "id"):
        q = FactQuery(order=order)
        w = FactWindow(facts, q, SESSION).load()
        worst = 0.0
        for index in range(0, w.total if order != "id" else 0, PAGE_SIZE):
            t0 = time.perf_counter()
            w.row(index)
            worst = max(worst, (time.perf_counter() - t0) * 1000)
        if order != "id":  # the id order: its jumps only
            out[f"scroll all {w.total:,}: worst page ({order}), ms"] = worst
        jumps = FactWindow(facts, q, SESSION).load()
        worst = walk = 0.0
        for k in range(1, 20):
            depth = jumps.total * k // 20 // PAGE_SIZE * PAGE_SIZE
            t0 = time.perf_counter()
            jumps.row(depth)
            t1 = time.perf_counter()
            facts.page(q, SESSION, depth, PAGE_SIZE)
            t2 = time.perf_counter()
            worst, walk = max(worst, (t1 - t0) * 1000), max(walk, (t2 - t1) * 1000)
        out[f"jump's page read ({order}), worst ms"] = worst
        out[f"  … by an OFFSET walk ({order}; baseline), ms"] = walk
        t0 = time.perf_counter()
        w.recount()
        out[f"count shown ({order}), ms"] = (time.perf_counter() - t0) * 1000
    for text in ("cache", "tabs deploy"):
        t0 = time.perf_counter()
        w = FactWindow(facts, FactQuery(text=text), SESSION).load()
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
    global SLICES
    SLICES = SLICES or Slices()
    ops = await browser_ops(memory)
    base = ops["a Down key (baseline)"]
    print(f"operations (ms; worst loop slice ÷ the Down key's, budget a frame: {FRAME_MS:.0f} ms):")
    print(
        f"  {'':34} {'slice':>7} {'CPU':>6} {'÷Down':>6} {'rows ready':>10} {'act+pause':>11} full GC"
    )
    for name, (wall, cpu, shown, paused, gcs) in ops.items():
        flag = "" if wall <= FRAME_MS else "  OVER A FRAME"
        print(f"  {name:<34} {wall:7.1f} {cpu:6.1f} {wall / base[0]:6.2f} {shown:10.1f}"
              f" {paused:11.1f} {int(gcs):7d}{flag}")  # fmt: skip
    print("  (a key's rows ready and act+pause include Pilot's idle waits: ~20 ms each)")
    for name, ms in walks(memory).items():
        print(f"  {name:<46} {ms:7.1f}")
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
