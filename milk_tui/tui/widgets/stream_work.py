"""The deferred work of a streaming Markdown view, run by its worker in paced slices.

Two kinds of slice, alternated while both have work: consuming the backlog (text a frame
brought beyond ``stream_pace.PIECE_CHARS``: parse where its blocks end, render those
that fit in the slice's budget, queue the rest with plain placeholders) and rendering
queued blocks (``block_queue.py``).  Between slices the worker sleeps (``stream_pace.pause``),
and what a slice changed is shown a pause after it: the screen update that shows it is
then never in the same stretch of the loop as the slice itself.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from milk_tui.tui.widgets.block_queue import DRAIN_PAUSE_S, DRAIN_SHOW_S, SYNC_BUDGET_S
from milk_tui.tui.widgets.stream_pace import (
    AGAIN_S,
    SHOW_EVERY_S,
    SLICE_BUDGET_S,
    YIELD_S,
    others_due,
    pause,
    screen_updated,
    update_screen_now,
)

if TYPE_CHECKING:
    from milk_tui.tui.widgets.stream_view import StreamView


async def run_work(view: StreamView, gen: int) -> None:
    """Consume the backlog, then render the queued blocks, slice by slice with a pause
    between (keys are handled in the pauses, ``stream_pace.py``); swap each batch of
    rendered blocks in, and show it now and then."""
    work = 0.0
    queue = view._queue
    wait = 0.0
    try:
        while (view._backlog or queue.pending or view._show_due) and gen == view._gen:
            await pause(wait)
            wait = DRAIN_PAUSE_S
            if gen != view._gen:
                return
            if view._show_due:  # its screen update then comes a pause after the slice
                view._show_due = False
                view._relayout(view._height())
                update_screen_now(view)  # now, not at the next 60 Hz tick, and the next
                await screen_updated(view)  # slice only after it
                wait = AGAIN_S
                continue
            if view._backlog and not (view._caught_up and queue.pending):
                if catch_up(view):
                    wait = YIELD_S
                continue
            view._caught_up = False
            if not queue.pending:
                continue
            t0 = time.thread_time()
            done = await queue.render_next(view._width, view.palette, ended=view._done)
            if queue.cut:
                wait = YIELD_S
            if gen != view._gen:
                return
            view.block_renders += len(done)
            # a list splice; the repaint it needs is what costs
            low = queue.swap_in(done, view._fixed, view._plain.count)
            for y in [y for y in view._styled if y >= low]:
                del view._styled[y]
            view._layout_due = True
            view._maybe_final()
            work += time.thread_time() - t0
            quiet = time.perf_counter() - view._shown_at  # streamed frames repaint too
            if view.rendered_final:
                view._relayout(-1)
            elif not queue.pending or (work >= DRAIN_SHOW_S and quiet >= DRAIN_SHOW_S):
                view._show_due, work = True, 0.0  # all rendered: shown even if no frame comes
    finally:
        if view._drain_gen == gen:
            view._drain_gen = -1


def catch_up(view: StreamView) -> bool:
    """One slice of the backlog: pieces until the budget is spent or another callback is
    due; once it is all consumed, the open block is shown (and the reply finished, if it
    has ended).  True when the slice stopped for another callback."""
    before = view._height()
    view._caught_up = True
    view._frame_t0, view._budget = time.perf_counter(), SLICE_BUDGET_S
    cut = False
    while view._backlog and time.perf_counter() - view._frame_t0 < SLICE_BUDGET_S:
        view._region.open += view._backlog.take()
        view._close_finished(final=False)
        if others_due():
            cut = True
            break
    view._budget = SYNC_BUDGET_S
    view._layout_due = view._layout_due or view._height() != before
    if view._backlog:  # shown at the frame rate: each showing is a screen update
        view._show_due |= time.perf_counter() - view._shown_at >= SHOW_EVERY_S
        return cut
    view._show_open()
    if view._done:
        view._finish_open()
    else:
        view._show_due = True
    return cut
