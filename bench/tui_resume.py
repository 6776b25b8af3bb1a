"""Resume a 2,000-turn session to first paint (budget: ≤ 300 ms).

Measured in the same run, alternating, headless ``run_test`` at 120×40:

* empty  — the same app on a new, empty session (the app's own start-up cost);
* short  — the same resuming a 100-turn session of the same turns (a screenful and more: it
  paints what the long one paints);
* resume — the folder's 2,000-turn session (``--turns``) resumed until the transcript tail
  is painted (only the last blocks are mounted; the rest stay in the store until scrolled
  to).

Each start goes the way the command line (the early integrity check) and ``run_app``
(``tui/launch.py``) start the TUI, after a previous run
of the same session (the renders it kept, the start card); ``--direct``: the app on
``start``'s application, every reply rendered anew (the figure printed before session 12).
``--home BIG``: the long session is the one of a large store (``bench/big_store.py``: a
million facts, 1,000 sessions), resumed in a copy of it; the empty and the short session
are in an empty home.

Printed: the times, the differences and the ratios: to the empty session (what a session's
turns cost) and to the short one (what its length costs).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tui_harness import temp_home  # noqa: E402

CWD = "/tmp/milk-bench-resume"
BIG_CWD = "/bench/big"
"""The folder of ``bench/big_store.py``'s long session."""
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


async def first_paint(
    session_name: str, new: bool, direct: bool = False, where: tuple[str, str] | None = None
) -> tuple[float, int]:
    """Start to the frame that shows the transcript's tail.  As ``run_app`` starts the TUI
    (``tui/launch.py``): the opening in its thread from the last start's card, the tail of
    a long session, the replies the last run kept rendered, code plain until its lexer is
    loaded; and at exit the renders kept for the next start (a user's every start but the
    first paints from those).  ``direct``: the app built on ``start``'s application, every
    reply rendered anew with its code highlighted (the path no user takes; the figure
    this benchmark printed before)."""
    from milk_tui.config.paths import data_dir
    from milk_tui.facade.application import start
    from milk_tui.facade.opening import Opening, open_application
    from milk_tui.tui.app import MilkApp
    from milk_tui.tui.screens.startup import TAIL_TURNS
    from milk_tui.tui.ui_state import UIState
    from milk_tui.tui.widgets import kept_renders
    from milk_tui.tui.widgets.conversation import Conversation
    from milk_tui.tui.widgets.md_render import render_markdown

    home, cwd = where or (os.environ["MILK_HOME"], CWD)
    os.environ["MILK_HOME"] = home
    render_markdown.cache_clear()  # each round pays for its renders (no help from the last one)
    # the renders the session's own last run kept (a user resumes what they last ran)
    kept = data_dir() / f"{session_name}-{kept_renders.FILE_NAME}"
    kept_renders.forget()
    t0 = time.perf_counter()
    if direct:
        application = start(
            cwd=CWD, session_name=session_name, new=new, demo=True, cooperative=True
        )
        app = MilkApp(application, ui_state=UIState(theme="milk-dark"))
    else:
        from milk_tui.facade.early import check_database_soon

        check_database_soon(create=True)  # as the command line does before the TUI's start

        def factory() -> Opening:
            kept_renders.use(kept)
            return open_application(
                cwd=cwd, session_name=session_name, new=new, demo=True, cooperative=True,
                permission_policy="ask", from_card=True, probe_later=True,
                history_tail=TAIL_TURNS,
            )  # fmt: skip

        app = MilkApp(runtime_factory=factory, ui_state=UIState(theme="milk-dark"))
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
        # The frame that shows it: the refresh after this layout.  (A ``pilot.pause()``
        # waits until the process's CPU is idle, in steps of 20 ms, background threads
        # included: it measured the work after the frame, 20 ms at a time.)
        painted: list[float] = []
        screen.call_after_refresh(lambda: painted.append(time.perf_counter()))
        while not painted:
            await asyncio.sleep(0)
        dt = painted[0] - t0
        await pilot.pause()
        application = app.application
        assert application is not None
        n = application.runtime.dispatcher.session.records  # held or in the store
        await pilot.pause(0.6)  # past the code highlighting's load, as a user's run lasts
    application.close_database()
    if not direct:
        kept_renders.save(kept)
    return dt, n


async def run(turns: int, rounds: int, direct: bool, big_home: str = "") -> None:
    empty_home = temp_home()
    big: tuple[str, str] | None = None
    if big_home:  # the long session in a copy of a large store; the others in an empty one
        copy = tempfile.mkdtemp(prefix="milk-bench-big-")
        t0 = time.perf_counter()
        shutil.copy2(Path(big_home) / "milk.db", Path(copy) / "milk.db")
        print(f"{big_home} copied in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        big = (copy, BIG_CWD)
    else:
        make_session(turns)
    make_session(SHORT, "short")
    try:
        await _rounds(rounds, direct, (empty_home, CWD), big)
    finally:
        if big:
            shutil.rmtree(big[0], ignore_errors=True)


async def _rounds(
    rounds: int, direct: bool, empty_home: tuple[str, str], big: tuple[str, str] | None
) -> None:
    await first_paint("warm-up", True, direct, empty_home)  # imports, CSS, first-run caches
    # each session's last run, which left its renders kept (as a user's previous start)
    await first_paint("short", False, direct, empty_home)
    await first_paint("big", False, direct, big)
    empty: list[float] = []
    short: list[float] = []
    resume: list[float] = []
    n = 0
    for r in range(rounds):
        empty.append((await first_paint(f"empty-{r}", True, direct, empty_home))[0])
        short.append((await first_paint("short", False, direct, empty_home))[0])
        dt, n = await first_paint("big", False, direct, big)
        resume.append(dt)
    e, sh, m = statistics.median(empty), statistics.median(short), statistics.median(resume)
    how = "built on start's application, no kept renders" if direct else "as run_app starts it"
    print(f"TUI resume to first paint (headless run_test 120×40, {how}), {rounds} rounds, medians")
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
    ap.add_argument(
        "--direct",
        action="store_true",
        help="the app built on start's application, every reply rendered anew (the old figure)",
    )
    ap.add_argument(
        "--home",
        default="",
        help="a home made by bench/big_store.py: resume its long session (in a copy of it)",
    )
    a = ap.parse_args()
    asyncio.run(run(a.turns, 2 if a.quick else a.rounds, a.direct, a.home))


if __name__ == "__main__":
    main()
