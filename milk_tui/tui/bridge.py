"""The one bus listener between the application and the widgets.

The dispatcher publishes one ``text_delta`` per streamed chunk (tens of thousands per
second on a fast server).  Rendering each would starve the event loop, so deltas are
buffered and delivered at most ``FRAME_HZ`` times a second as one coalesced delta per
(kind, slot) run.  The first delta after a quiet spell (the first token of a reply) is
delivered on the next loop iteration, not a frame later: delta frames are spaced, not
delayed.  Any other event is rare and matters for ordering (a hand-off marker must land
between the two replies it separates), so it first flushes the pending deltas and is then
delivered on the next loop iteration, without waiting for the frame timer.

Except at a turn's start: from ``TurnStarted`` until the agent's request is on its way
(``RequestSent``), the turn's bookkeeping events (route, state, notices) are held, at most
``HOLD_S``.  Delivering them lays the screen out and repaints it (~10 ms), and a repaint
between the request's build and its send delays the send by as much
(docs/adr/0045-the-request-before-the-repaint.md).  Any other event ends the hold.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Protocol

from milk_tui.model.events import (
    BusEvent,
    EscalationStarted,
    Notice,
    RequestSent,
    RouteDecided,
    StateChanged,
    TextDelta,
    ThinkingDelta,
    TurnStarted,
    Usage,
    fast_delta,
)
from milk_tui.model.terminal_text import inert_copy

FRAME_HZ = 20
"""Delta frames per second.  Each frame repaints the whole visible conversation (~20-25 ms
of Textual compositor work at 120×40 on a 2-core box), so 20 fps keeps painting under half
the CPU while a fast stream is read; text still looks continuous at this rate."""

HOLD_S = 0.05
"""The longest a turn's start waits for its request to be sent: an agent that never says
(a plain subprocess agent) or a slow connect (a TLS handshake) shows it after this, which
is still within what reads as at once."""

HELD = (TurnStarted, RouteDecided, StateChanged, Notice, EscalationStarted, Usage)
"""What a turn publishes before its request goes out; any other event ends the hold."""

Deliver = Callable[[list[BusEvent]], None]


class EventSource(Protocol):
    """Where events come from: the application facade (or, in tests, a bare bus)."""

    def add_listener(self, callback: Callable[[BusEvent], None]) -> Callable[[], None]: ...


class BusBridge:
    def __init__(self, bus: EventSource, deliver: Deliver, *, frame_hz: float = FRAME_HZ) -> None:
        self._bus = bus
        self._deliver = deliver
        self._frame_s = 1.0 / frame_hz
        self._pending: list[BusEvent] = []
        self._delta_parts: list[str] = []
        """Text of the open delta run; joined once per frame."""
        self._delta_head: TextDelta | ThinkingDelta | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._soon: asyncio.Handle | None = None
        self._hold: asyncio.TimerHandle | None = None
        """Set from a turn's start until its request is sent (or ``HOLD_S``)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: int | None = None
        self._last_frame = float("-inf")
        """Loop time of the last delivered frame with a delta in it."""
        self._remove: Callable[[], None] | None = None
        self.frames = 0
        self.events_in = 0

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._remove = self._bus.add_listener(self._on_event)

    def stop(self) -> None:
        if self._remove is not None:
            self._remove()
            self._remove = None
        for h in (self._timer, self._soon, self._hold):
            if h is not None:
                h.cancel()
        self._timer = self._soon = self._hold = None

    # ----- listener (runs inline in the publisher) -------------------------------------

    def _on_event(self, event: BusEvent) -> None:
        if threading.get_ident() != self._thread and self._loop is not None:
            self._loop.call_soon_threadsafe(self._on_event, event)
            return
        self.events_in += 1
        if isinstance(event, (TextDelta, ThinkingDelta)):
            self._cancel_hold()  # the reply's text: its frame delivers what was held
            head = self._delta_head
            if head is not None and (type(head) is not type(event) or head.slot != event.slot):
                self._close_run()
            if self._delta_head is None:
                self._delta_head = event
            self._delta_parts.append(event.text)
            loop = self._loop
            if self._timer is None and loop is not None:
                wait = self._last_frame + self._frame_s - loop.time()
                self._timer = loop.call_later(max(0.0, wait), self.flush)
            return
        self._close_run()
        if type(event) is RequestSent:
            self._end_hold()
            return
        self._pending.append(event)
        if type(event) is TurnStarted and self._loop is not None and self._hold is None:
            self._hold = self._loop.call_later(HOLD_S, self._end_hold)
        if self._hold is not None and isinstance(event, HELD):
            return
        self._cancel_hold()
        if self._soon is None and self._loop is not None:
            self._soon = self._loop.call_soon(self.flush)

    def _cancel_hold(self) -> None:
        if self._hold is not None:
            self._hold.cancel()
            self._hold = None

    def _end_hold(self) -> None:
        """The request is out (or ``HOLD_S`` passed): what was held goes next iteration."""
        if self._hold is None:
            return
        self._cancel_hold()
        if self._pending and self._soon is None and self._loop is not None:
            self._soon = self._loop.call_soon(self.flush)

    def _close_run(self) -> None:
        head = self._delta_head
        if head is None:
            return
        text = "".join(self._delta_parts)
        if len(self._delta_parts) > 1:
            head = fast_delta(type(head), head.slot, text, head.session_id)
        self._pending.append(head)
        self._delta_head = None
        self._delta_parts = []

    # ----- delivery ---------------------------------------------------------------------

    def flush(self) -> None:
        """Deliver everything pending, in publication order, as one batch."""
        for h in (self._timer, self._soon, self._hold):
            if h is not None:
                h.cancel()
        self._timer = self._soon = self._hold = None
        if self._delta_head is not None and self._loop is not None:
            self._last_frame = self._loop.time()
        self._close_run()
        if not self._pending:
            return
        batch, self._pending = self._pending, []
        self.frames += 1
        self._deliver([inert_copy(e) for e in batch])  # untrusted text is inert on screen
