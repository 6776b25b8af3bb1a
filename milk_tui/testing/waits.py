"""The suite's one way to wait: a deadline on a condition that fails loudly.

A wait that returns quietly when its deadline passes turns every check after it into one that
cannot fail (the caller then asserts on whatever state there happened to be, or on nothing).
So every wait here raises ``AssertionError`` naming what it waited for, taken from ``what`` or,
when the caller gives none, from the condition's own source line.

- ``until(pilot, done)``: in a Textual app test (``pilot.pause`` lets the app handle its
  messages between checks), or in plain asyncio code with ``pilot=None``.
- ``wait_for(done)``: in synchronous code (threads, subprocesses, servers).

Deadlines are generous because a loaded two-core machine is slow, never wrong: they bound a
hang, they do not measure speed.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import time
from collections.abc import Callable
from typing import Any, Protocol

WAIT_S = 15.0
"""The default deadline: long enough for a busy machine, short next to pytest's timeout."""

POLL_S = 0.02


class Pausing(Protocol):
    async def pause(self, delay: float | None = None) -> None: ...


def describe(done: Callable[..., Any]) -> str:
    """A readable name for a condition: its lambda's source text, else its qualified name."""
    try:
        source = inspect.getsource(done).strip()
    except (OSError, TypeError):
        source = ""
    found = re.search(r"lambda[^:]*:\s*(.*)", source, re.S)
    if found:
        body = " ".join(found.group(1).split())
        return body.rstrip(",)").strip() or source
    name = getattr(done, "__qualname__", None) or repr(done)
    return str(name)


def _failure(done: Callable[..., Any], what: str | None, timeout: float) -> AssertionError:
    return AssertionError(f"timed out after {timeout:g}s waiting for {what or describe(done)}")


async def until(
    pilot: Pausing | None,
    done: Callable[[], object],
    timeout: float = WAIT_S,
    *,
    what: str | None = None,
) -> None:
    """Return once ``done()`` is true; raise naming ``what`` when ``timeout`` seconds pass."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not done():
        if loop.time() > deadline:
            raise _failure(done, what, timeout)
        if pilot is None:
            await asyncio.sleep(POLL_S)
        else:
            await pilot.pause(POLL_S)


def wait_for(
    done: Callable[[], object], timeout: float = WAIT_S, *, what: str | None = None
) -> None:
    """The synchronous ``until``: poll ``done()`` until true, raise naming ``what`` if not."""
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise _failure(done, what, timeout)
        time.sleep(POLL_S)
