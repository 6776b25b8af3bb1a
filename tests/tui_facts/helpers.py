"""Waiting and typing helpers for Pilot tests (predicates, not sleeps of a guessed length)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual.pilot import Pilot

KEY_NAMES = {" ": "space", ":": "colon", "/": "slash", ".": "full_stop", "#": "number_sign",
             "-": "minus", '"': "quotation_mark"}  # fmt: skip


async def wait_until(pilot: Pilot, pred: Callable[[], bool], timeout: float = 5.0) -> None:
    """Let the app run until ``pred()`` holds; fail with a clear message otherwise."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not pred():
        if loop.time() > end:
            raise AssertionError(f"condition not met within {timeout}s: {pred}")
        await pilot.pause(0.02)
    await pilot.pause()


async def type_text(pilot: Pilot, text: str) -> None:
    await pilot.press(*[KEY_NAMES.get(c, c) for c in text])
