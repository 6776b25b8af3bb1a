"""CPU-bound rendering in a worker thread without starving the event loop.

A Rich render is pure Python, so the thread holds the GIL while it runs.  At the default
switch interval (5 ms) every event-loop iteration — each releases the GIL in ``select`` —
waits up to 5 ms to get it back, and handling one key takes several iterations: tens of
milliseconds.  While a render thread runs, the interval is ``SWITCH_S`` instead
(https://docs.python.org/3/library/sys.html#sys.setswitchinterval).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import TypeVar

SWITCH_S = 0.0005
"""The interpreter's thread switch interval while a render thread runs."""

_T = TypeVar("_T")
_threads = 0
_saved_switch = 0.0


async def in_thread(fn: Callable[..., _T], *args: object) -> _T:
    """Run a CPU-bound render in a worker thread with a short switch interval."""
    global _threads, _saved_switch
    if _threads == 0:
        _saved_switch = sys.getswitchinterval()
        sys.setswitchinterval(min(SWITCH_S, _saved_switch))
    _threads += 1
    try:
        return await asyncio.to_thread(fn, *args)
    finally:
        _threads -= 1
        if _threads == 0:
            sys.setswitchinterval(_saved_switch)
