"""When a streaming reply's deferred work runs: in short slices, never next to a repaint.

A frame of a fast stream carries 6,000–10,000 characters; finding where its blocks end
(markdown-it's block parse) and placing them costs 6–18 ms — and it used to run in the
same loop iteration as, or the one after, Textual's screen update (6–13 ms, one callback
that cannot be split).  An event loop lets a key (or any timer) in only between
iterations, and a callback woken by a timer runs an iteration after the timer fires, so
two such pieces of work one or two iterations apart hold a key for their sum.

So a frame's text beyond ``PIECE_CHARS`` waits in a ``Backlog`` and is consumed by the
view's worker (``stream_work.py``) in slices of about ``SLICE_BUDGET_S``, which keep
apart from screen updates: a slice that slept through a repaint of a streaming view sleeps
again, so the timers and keys that came due during the update run first (``pause``), and
what a slice changed is shown by a screen update asked for at once, the next slice
waiting until it has run (``update_screen_now``, ``screen_updated``).  And a slice stops
after the step (a piece, a block) in which another callback came due (``others_due``) and
resumes right after it, so a key waits for one step, not for the slice's whole budget.
"""

from __future__ import annotations

import time
from asyncio import Future, TimerHandle, get_running_loop, sleep, wait_for
from collections.abc import Callable
from contextlib import suppress
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.widget import Widget

PIECE_CHARS = 1_500
"""Text consumed in one step: the block parse of this much costs ~1–1.5 ms."""
FIRST_PIECE_CHARS = 600
"""Text shown at once when a frame brings a reply's first text and more: a screen's worth
of lines; its Markdown render and the screen update that shows it share one stretch of
the loop, the rest is consumed a slice at a time after that update."""
SLICE_BUDGET_S = 0.004
"""How long a slice of the backlog, or of queued block renders while the reply streams,
may run: a screen update (6–13 ms) and the stream's own reads (2 ms each,
``engine/cooperative.py``) may share a stretch of the loop with it."""
AFTER_PAINT_S = 0.002
"""How long after a repaint of the view a slice waits: the rest of the screen update
(the compositor, the terminal write) and the iteration after it, where the callbacks
that came due meanwhile run."""
UPDATE_WAIT_S = 0.1
"""Longest wait for the screen update that shows a slice's lines."""
SHOW_EVERY_S = 0.05
"""While a backlog lasts, what its slices closed is shown at most this often (the bridge's
frame rate): each showing costs a screen update."""
AGAIN_S = 0.0003
"""The second sleep after a repaint that came while a slice slept: any delay puts its
timer behind the ones that came due during the repaint."""

YIELD_S = 0.00001
"""The sleep of a slice that stopped because other callbacks were due (``others_due``):
a timer, so that it runs after the timers that came due before it and after what is
already queued; this short, so that a slice cut after every block (the stream's reads and
timers are due that often) loses no throughput — at 0.1 ms a 20,000-chunk Markdown reply
took 30 % longer."""

_painted = [0.0]
_after_update: list[Callable[[], None]] = []
"""Called once, right after the next screen update ``update_screen_now`` runs that paints."""


def others_due() -> bool:
    """Whether another callback waits for the event loop: a key the terminal's input thread
    handed over (it arrives through ``call_soon_threadsafe``, in the ready queue), a task
    woken meanwhile, or a timer whose time has come.  A slice of deferred work stops at the
    first such moment after a step, so a key waits for one block's render (~1 ms), not for
    the whole slice's budget.  Private attributes of asyncio's own loop
    (``BaseEventLoop._ready`` and ``_scheduled``, the ready deque and the timer heap, in
    CPython's ``asyncio/base_events.py``); on a loop without them a slice runs its budget."""
    loop = get_running_loop()
    if getattr(loop, "_ready", None):
        return True
    timers: list[TimerHandle] = getattr(loop, "_scheduled", [])
    return bool(timers) and timers[0].when() <= loop.time()


def painted() -> None:
    """A streaming view was just painted (called from its ``render_lines``)."""
    _painted[0] = time.perf_counter()


def wait_s(min_s: float) -> float:
    """How long a slice of deferred work should wait from now."""
    return max(min_s, _painted[0] + AFTER_PAINT_S - time.perf_counter())


async def pause(min_s: float) -> None:
    """Sleep ``min_s`` (longer right after a repaint); if a streaming view was repainted
    while it slept, sleep a little again: the callbacks that came due during that repaint
    (a key, a timer) are then handled before this task's next slice, not after it."""
    while True:
        slept_at = time.perf_counter()
        await sleep(wait_s(min_s))
        if _painted[0] <= slept_at:
            return
        min_s = AGAIN_S


def update_screen_now(widget: Widget, tries: int = 4, *, layout: bool = True) -> None:
    """Have the screen lay out and paint what ``widget`` just changed now, not at the next
    tick of its 60 Hz update timer (up to 16 ms later).  The layout request reaches the
    screen as a message, so the update waits (a few queue turns at most) until it has;
    ``layout=False``: the widget kept its size, and the repaint request is awaited instead
    (a widget that needs a layout asks for a repaint first: waiting for that would paint
    it before it is laid out).  Private Textual API, used for want of a public one:
    ``Screen._on_timer_update`` (the update timer's callback), ``Screen._layout_required``
    and ``Screen._dirty_widgets``; tests/tui/test_first_token_path.py fails if one goes."""
    screen = widget.screen

    def update(left: int) -> None:
        due = screen._layout_required if layout else widget in screen._dirty_widgets
        if due or left <= 0:
            painting = bool(screen._layout_required or screen._dirty_widgets)
            screen._on_timer_update()
            while painting and _after_update:
                _after_update.pop()()
        else:
            screen.call_later(update, left - 1)

    widget.call_later(update, tries)


def after_update(callback: Callable[[], None]) -> None:
    """``callback()`` right after the next screen update that ``update_screen_now`` runs
    (what a conversation does to show new text at once)."""
    _after_update.append(callback)


async def screen_updated(widget: Widget) -> None:
    """Wait until the screen update that shows what ``widget`` just changed has run
    (Textual's ``call_after_refresh``): it comes at the screen's next 60 Hz tick, and a
    slice run meanwhile would share a stretch of the loop with it."""
    done: Future[None] = get_running_loop().create_future()

    def updated() -> None:
        if not done.done():
            done.set_result(None)

    if widget.call_after_refresh(updated):
        with suppress(TimeoutError):  # a screen that does not update (another on top)
            await wait_for(done, UPDATE_WAIT_S)


class Backlog:
    """Text a view was given but has not consumed yet, taken in pieces at line ends."""

    def __init__(self) -> None:
        self._text = ""

    def __bool__(self) -> bool:
        return bool(self._text)

    def __len__(self) -> int:
        return len(self._text)

    def add(self, text: str) -> None:
        self._text += text

    def clear(self) -> None:
        self._text = ""

    def take(self, limit: int = PIECE_CHARS) -> str:
        """The next piece: up to ``limit`` characters, cut after a line end when one is
        in reach (the block parse looks at complete lines only)."""
        text = self._text
        if len(text) <= limit:
            self._text = ""
            return text
        cut = text.rfind("\n", 0, limit)
        cut = cut + 1 if cut >= 0 else limit
        self._text = text[cut:]
        return text[:cut]
