"""Resume a 2,000-turn session to first paint (budget: ≤ 300 ms).

Measured in the same run, alternating, headless ``run_test`` at 120×40:

* empty  — the same app on a new, empty session (the app's own start-up cost);
* short  — the same resuming a 100-turn session of the same turns (a screenful and more: it
  paints what the long one paints);
* resume — ``start`` (the facade) resuming the folder's 2,000-turn session (``--turns``), then
  the app until the transcript tail is painted (only the last blocks are mounted; the rest
  stay in the store until scrolled to).

Printed: the times, the differences and the ratios: to the empty session (what a session's
turns cost) and to the short one (what its length costs).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tui_harness import temp_home  # noqa: E402

CWD = "/tmp/milk-bench-resume"
REPLY = (
    "Here is the **answer** to question {i}.\n\n- first point with `code`\n- second point\n\n"
    "```python\ndef f(x):\n    return x + {i}\n```\n"
)


SHORT = 100
"""Turns of the short session: a screenful and more, so that it paints what the long one does."""


def make_session(turns: int, name: str = "big") -> None:
    from milk_tui.config.paths import database_file
    from milk_tui.model.session import Turn
    from milk_tui.storage.db import Database
    from milk_tui.storage.sessions import SessionStore

    t0 = time.perf_counter()
    db = Database(database_file())
    store = SessionStore(db)
    s = store.create(CWD, name)
    batch = []
    for i in range(turns // 2):
        batch.append(
            Turn(
                "user",
                f"question {i}: how does part {i} work?",
                agent="primary",
                agent_name="demo-local",
            )
        )
        batch.append(Turn("assistant", REPLY.format(i=i), agent="primary", agent_name="demo-local"))
    # One transaction through the store's own insert path (rows, indexes and kept counts as
    # the app writes them): a commit per batch re-read and re-wrote the session each time.
    s.history.extend(batch)
    store.commit_turns(s, batch)
    db.close()
    print(
        f"session of {turns:,} turns written in {time.perf_counter() - t0:.1f} s", file=sys.stderr
    )


async def first_paint(session_name: str, new: bool) -> tuple[float, int]:
    from milk_tui.facade.application import start
    from milk_tui.tui.app import MilkApp
    from milk_tui.tui.ui_state import UIState
    from milk_tui.tui.widgets.conversation import Conversation
    from milk_tui.tui.widgets.md_render import render_markdown

    render_markdown.cache_clear()  # each round pays for its renders (no help from the last one)
    t0 = time.perf_counter()
    application = start(cwd=CWD, session_name=session_name, new=new, demo=True, cooperative=True)
    app = MilkApp(application, ui_state=UIState(theme="milk-dark"))
    async with app.run_test(size=(120, 40)) as pilot:
        while True:
            screen = app.main_screen
            if screen is not None and screen.is_mounted:
                conv = screen.query_one(Conversation)
                # the next turn's blocks wait at the end, hidden (widgets/conversation_next.py)
                kids = [k for k in conv.children if k.display]
                if kids and kids[-1].region.height > 0:
                    break
            await asyncio.sleep(0)
        await pilot.pause()  # the frame that shows it
        dt = time.perf_counter() - t0
        n = application.runtime.dispatcher.session.records  # held or in the store
    application.close_database()
    return dt, n


async def run(turns: int, rounds: int) -> None:
    temp_home()
    make_session(turns)
    make_session(SHORT, "short")
    await first_paint("warm-up", True)  # imports, CSS parse, first-run caches
    empty: list[float] = []
    short: list[float] = []
    resume: list[float] = []
    n = 0
    for r in range(rounds):
        empty.append((await first_paint(f"empty-{r}", True))[0])
        short.append((await first_paint("short", False))[0])
        dt, n = await first_paint("big", False)
        resume.append(dt)
    e, sh, m = statistics.median(empty), statistics.median(short), statistics.median(resume)
    print(f"TUI resume to first paint (headless run_test 120×40), {rounds} rounds, medians")
    print(f"  empty session     : {e * 1000:7.1f} ms (min {min(empty) * 1000:.1f})")
    print(f"  {SHORT:>5}-turn session: {sh * 1000:7.1f} ms (min {min(short) * 1000:.1f})")
    print(
        f"  {n:>5}-turn session: {m * 1000:7.1f} ms (min {min(resume) * 1000:.1f})  (target ≤ 300 ms)"
    )
    print(f"  cost of the history: {(m - e) * 1000:+.1f} ms; resume / empty = {m / e:.2f}×")
    print(f"  cost of its length: {(m - sh) * 1000:+.1f} ms; resume / {SHORT}-turn = {m / sh:.2f}×")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="2,000 turns, 2 rounds")
    ap.add_argument("--turns", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    asyncio.run(run(a.turns, 2 if a.quick else a.rounds))


if __name__ == "__main__":
    main()
