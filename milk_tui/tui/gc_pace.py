"""Garbage collection paced to turns: no full collection while a reply streams.

A full (generation-2) collection walks every tracked object that is not frozen.  A long
reply creates hundreds of thousands of them (each Textual ``Strip`` holds seven caches),
so full collections in the middle of a 20,000-chunk reply held the event loop 20–90 ms
each, several times per reply (docs/performance.md).  While a turn runs, full collections
are held off (the young generations are still collected, 1–4 ms each).  Once the turn is
over and its last frames are painted, the young generations are collected and the
survivors frozen (``gc.freeze``, https://docs.python.org/3/library/gc.html#gc.freeze):
later full collections skip them.  A full collection after a 20,000-chunk reply still
took 35 ms, so it runs only every ``UNFREEZE_EVERY`` turns, after unfreezing everything:
that is when objects that died in a cycle after being frozen (a transcript block
unmounted long after its turn) are reclaimed.

From the start of a turn until its first text is painted (tui/first_text.py), no
collection runs at all: the young collections there cost 2–4 ms of the way from Enter to
the first token (docs/performance.md, "First token, round 6"), and that stretch allocates
little more than one frame's worth.  A turn without text (tool calls only) collects again
after ``YOUNG_HOLD_MAX_S``.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

from textual.widget import Widget

HOLD_THRESHOLD = 1_000_000
"""Young collections before a full one while a turn runs: in effect never."""
UNFREEZE_EVERY = 20
"""Turns between two full collections of the whole heap (each one a 30–100 ms pause)."""
RELEASE_AFTER_S = 0.5
"""From the end of a turn to its collection: after the reply's last frames, before a
person has typed the next prompt."""

YOUNG_HOLD_MAX_S = 1.0
"""The longest a turn holds off every collection while no text of it is painted."""

_saved: tuple[int, int, int] | None = None
_turn = 0
_paused = False
"""Collection is off until the turn's first text is painted (``hold``)."""


def hold(widget: Widget | None = None) -> int:
    """A turn started: no collection at all until ``first_text_painted`` (or for
    ``YOUNG_HOLD_MAX_S``, a timer of ``widget``), and no full collections until ``release``
    with the returned token."""
    global _saved, _turn, _paused
    _turn += 1
    if _saved is None:
        _saved = gc.get_threshold()
        gc.set_threshold(_saved[0], _saved[1], HOLD_THRESHOLD)
    if gc.isenabled():  # off during start-up (tui/app.py): then that owns it
        gc.disable()
        _paused = True
        if widget is not None:
            widget.set_timer(YOUNG_HOLD_MAX_S, first_text_painted)
    return _turn


def paused() -> bool:
    """No collection runs until a turn's first text is painted."""
    return _paused


def first_text_painted() -> None:
    """The turn's first text is on screen (or it has waited ``YOUNG_HOLD_MAX_S``): young
    collections run again."""
    global _paused
    if _paused:
        _paused = False
        gc.enable()


def release(token: int) -> None:
    """The turn ``token`` is over and painted: collect its young garbage, freeze what lives
    on, and collect as usual again — unless another turn has started meanwhile."""
    global _saved
    if token != _turn:
        return
    first_text_painted()
    if _saved is None:
        return
    gc.set_threshold(*_saved)
    _saved = None
    if gc.isenabled():
        if token % UNFREEZE_EVERY == 0:
            gc.unfreeze()
            gc.collect()
        else:
            gc.collect(1)
        gc.freeze()


RELEASE_WAIT_MAX_S = 10.0
"""The longest a release waits for a reply still being rendered."""


def release_later(
    widget: Widget, token: int, rendering: Callable[[], bool] = lambda: False
) -> None:
    """``release(token)`` once the turn's last frames are painted (a timer of ``widget``):
    ``RELEASE_AFTER_S`` after the turn, or later while ``rendering()`` — a long Markdown
    reply's queued blocks are still rendered for a while after its last token, and a
    collection then would stall those frames."""
    waited = [0.0]

    def check() -> None:
        waited[0] += RELEASE_AFTER_S
        if rendering() and waited[0] < RELEASE_WAIT_MAX_S:
            widget.set_timer(RELEASE_AFTER_S, check)
        else:
            release(token)

    widget.set_timer(RELEASE_AFTER_S, check)
