"""A slice of a streaming reply's deferred work stops as soon as another callback of the
event loop is due (a key, a timer, a woken task), so a key waits for one step of it, not
for the slice's whole budget (``stream_pace.others_due``)."""

from __future__ import annotations

import asyncio
import time

import pytest

from milk_tui.tui.widgets import block_queue, stream_work
from milk_tui.tui.widgets.block_queue import Block, BlockQueue
from milk_tui.tui.widgets.palette import Palette
from milk_tui.tui.widgets.stream_pace import PIECE_CHARS, others_due
from tui.test_markdown_streaming import _doc, _mounted_view


def test_others_due_sees_a_ready_callback_and_a_due_timer_only() -> None:
    async def main() -> list[bool]:
        loop = asyncio.get_running_loop()
        seen = [others_due()]  # nothing else scheduled
        loop.call_soon(lambda: None)
        seen.append(others_due())  # a ready callback
        await asyncio.sleep(0)  # it ran
        timer = loop.call_later(0.005, lambda: None)
        seen.append(others_due())  # a timer not yet due
        time.sleep(0.01)
        seen.append(others_due())  # now it is
        timer.cancel()
        return seen

    assert asyncio.run(main()) == [False, True, False, True]


def _queue_of(n: int) -> BlockQueue:
    queue, fixed = BlockQueue(), []
    for i in range(n):
        block = Block("fence", f"```python\nx = {i}\n```\n", (), False, i)
        queue.add(block, fixed)
        queue.pending.append(block)
    return queue


def test_queued_renders_stop_after_one_block_when_a_callback_is_due(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(block_queue, "SLICE_BUDGET_S", float("inf"))  # only the cut stops it

    async def main() -> tuple[int, bool, int, bool]:
        queue = _queue_of(6)
        asyncio.get_running_loop().call_soon(lambda: None)  # e.g. a key just handed over
        cut = await queue.render_next(60, Palette(), ended=False)
        first = (len(cut), queue.cut)
        await asyncio.sleep(0)
        rest = await queue.render_next(60, Palette(), ended=False)
        return (*first, len(rest), queue.cut)

    assert asyncio.run(main()) == (1, True, 5, False)


async def test_a_backlog_slice_stops_after_one_piece_when_a_callback_is_due(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import random

    monkeypatch.setattr(stream_work, "SLICE_BUDGET_S", float("inf"))
    async with _mounted_view() as (app, pilot, view):
        view.append(_doc(random.Random(11), 400))  # far more than one piece: a backlog
        before = view.backlog
        assert before > 3 * PIECE_CHARS
        asyncio.get_running_loop().call_soon(lambda: None)
        assert stream_work.catch_up(view) is True  # it stopped for the callback
        assert 0 < before - view.backlog <= PIECE_CHARS
