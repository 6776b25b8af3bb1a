"""The pacing of a streaming view's deferred work (``stream_pace.py``): the backlog is
taken at line ends, and a slice that slept through a repaint sleeps again."""

from __future__ import annotations

import pytest

from milk_tui.tui.widgets import stream_pace
from milk_tui.tui.widgets.stream_pace import AGAIN_S, Backlog


def test_backlog_pieces_end_at_a_line_end_within_reach() -> None:
    log = Backlog()
    log.add("a" * 10 + "\n" + "b" * 10 + "\n" + "c" * 30)
    assert log.take(15) == "a" * 10 + "\n"  # cut after the line end, not at 15
    assert log.take(15) == "b" * 10 + "\n"
    assert log.take(15) == "c" * 15  # no line end in reach: cut at the limit
    log.add("\n")
    assert log.take(100) == "c" * 15 + "\n" and not log and len(log) == 0


class Sleeps:
    """Stands in for ``asyncio.sleep`` in ``stream_pace``: records each sleep, and with
    ``paint_in_first`` a streaming view is repainted while the first one lasts."""

    def __init__(self, paint_in_first: bool) -> None:
        self.taken: list[float] = []
        self.paint_in_first = paint_in_first

    async def __call__(self, s: float) -> None:
        self.taken.append(s)
        if len(self.taken) == 1 and self.paint_in_first:
            stream_pace.painted()


@pytest.mark.parametrize("repainted", [False, True])
async def test_a_slice_sleeps_again_after_a_repaint_that_came_while_it_slept(
    monkeypatch: pytest.MonkeyPatch, repainted: bool
) -> None:
    sleeps = Sleeps(paint_in_first=repainted)
    monkeypatch.setattr(stream_pace, "sleep", sleeps)
    monkeypatch.setattr(stream_pace, "_painted", [0.0])
    await stream_pace.pause(0.001)
    if repainted:  # the callbacks that came due during the repaint go first
        assert len(sleeps.taken) == 2 and sleeps.taken[1] >= AGAIN_S
    else:
        assert sleeps.taken == [0.001]
