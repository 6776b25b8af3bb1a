"""Snapshots of one reply (heading, list, bold, inline code, a fenced block) in each
``colorization`` mode, at 80×24 and 160×45: switching re-draws the reply on screen."""

from __future__ import annotations

from typing import Any, cast

import pytest
from textual.pilot import Pilot

from milk_tui.tui.app import MilkApp
from tui.snapshot_base import SMALL, SnapshotCase, send

MODES = ("off", "fenced", "balanced", "full")


def colorize(mode: str) -> Any:
    async def step(pilot: Pilot[Any]) -> None:
        cast(MilkApp, pilot.app).set_colorization(mode)  # /colorize also saves (tested apart)
        await pilot.pause()
        await pilot.pause()

    return step


class TestColorize(SnapshotCase):
    @pytest.mark.parametrize("mode", MODES)
    def test_reply_80x24(self, mode: str) -> None:
        assert self.shot(send("/escalate the parser"), colorize(mode), size=SMALL)

    @pytest.mark.parametrize("mode", MODES)
    def test_reply_160x45(self, mode: str) -> None:
        assert self.shot(send("/escalate the parser"), colorize(mode), size=(160, 45))
