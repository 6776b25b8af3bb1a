"""A turn's first text painted: the agents' streams read on, and collection resumes.

A fast server sends a whole reply at once.  Its first text reaches the conversation a
loop turn after it is published; the rest would then be parsed and published in 2 ms
slices (engine/cooperative.py) between that delivery and the screen update that paints
it, each slice delaying the first token on screen.  The stream instead waits on
``FirstTextGate.wait`` (the application's ``pace_first_text``), which returns once the
bridge has delivered a text and the screen update that the conversation asks for at once
(``stream_pace.update_screen_now``) has run — or, if none comes, once the screen has been
refreshed after the delivery.  The garbage collector is off for the same stretch
(tui/gc_pace.py).
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual.screen import Screen

from milk_tui.model.events import BusEvent, TextDelta, ThinkingDelta
from milk_tui.tui import gc_pace
from milk_tui.tui.widgets import stream_pace


class FirstTextGate:
    """Owned by the app: the streams' waits, released after the screen update that
    follows a delivered text."""

    def __init__(self) -> None:
        self._waiting: list[asyncio.Future[None]] = []

    async def wait(self) -> None:
        """Returns after the next screen update that follows a text's delivery."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append(done)
        await done

    def delivered(self, batch: list[BusEvent], screen: Screen[Any]) -> None:
        """The bridge delivered ``batch`` to the widgets of ``screen``."""
        if not (self._waiting or gc_pace.paused()):
            return
        if not any(isinstance(e, (TextDelta, ThinkingDelta)) for e in batch):
            return
        waiting, self._waiting = self._waiting, []
        # Textual's refresh callbacks wait for a screen with nothing left to repaint: a
        # key typed meanwhile (a prompt box to repaint) would hold them past the paint.
        stream_pace.after_update(lambda: _painted(waiting))
        screen.call_after_refresh(_painted, waiting)


def _painted(waiting: list[asyncio.Future[None]]) -> None:
    gc_pace.first_text_painted()
    for done in waiting:
        if not done.done():  # a wait that timed out is cancelled
            done.set_result(None)
