"""Redraws of a side pane, paced while a turn runs.

A tool-heavy turn publishes dozens of events a second (tool calls, results, usage), and a
pane that re-lays itself out on each one costs a layout pass of the whole screen per
event.  While a turn is busy, ``Paced`` redraws at once if the last redraw is older than
``PANE_REDRAW_S`` and otherwise once at the end of that interval; between turns (and on
the event that ends a turn) it redraws at once, so what a pane shows at rest is exact.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.timer import Timer
from textual.widget import Widget

PANE_REDRAW_S = 0.25
"""At most four redraws a second per pane while a turn runs."""


class Paced:
    def __init__(self, owner: Widget, redraw: Callable[[], None]) -> None:
        self._owner = owner
        self._redraw = redraw
        self._timer: Timer | None = None
        self._last = 0.0
        self.busy = False
        self.redraws = 0
        """Redraws done (tests count them)."""

    def request(self) -> None:
        if not self.busy or not self._owner.is_attached:
            self.now()
            return
        if self._timer is not None:
            return  # one redraw is already due
        wait = self._last + PANE_REDRAW_S - time.monotonic()
        if wait <= 0:
            self.now()
        else:
            self._timer = self._owner.set_timer(wait, self.now)

    def now(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._last = time.monotonic()
        self.redraws += 1
        self._redraw()
