"""``/usage`` in the real app (demo agents, Pilot) and as SVG snapshots; the cache-hit rate
in the status line and the escalation pane."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, cast

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, TabbedContent
from textual_plotext import PlotextPlot
from tui.conftest import make_app, settle, type_and_send
from tui.snapshot_base import LARGE, SMALL, SnapshotCase, on_screen, send
from tui.snapshot_base import until as until_shown

from milk_tui.model import events as ev
from milk_tui.model.session import TokenUsage
from milk_tui.storage.usage_log import DAY_S, append
from milk_tui.testing.waits import until
from milk_tui.tui.app import MilkApp
from milk_tui.tui.screens.usage_screen import UsageScreen
from milk_tui.tui.widgets.escalation_pane import EscalationPane
from milk_tui.tui.widgets.status_line import StatusLine

NOW = 1_767_225_600.0  # the snapshot clock: 2026-01-01T00:00:00Z


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Days start at UTC midnight whatever the machine's zone (the per-day buckets)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _cells(screen: UsageScreen, scope: str) -> list[list[str]]:
    table = screen.query_one(f"#usage-table-{scope}", DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_usage_screen_shows_three_scopes(milk_home: Any) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await type_and_send(pilot, "hello there")
        await type_and_send(pilot, "/usage")
        screen = app.screen
        assert isinstance(screen, UsageScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        session = _cells(screen, "session")
        assert session[0][:3] == ["demo-small", "primary", "1"] and session[-1][0] == "total"
        assert _cells(screen, "folder")[0][:3] == ["demo-small", "primary", "1"]
        assert _cells(screen, "all")[-1][:3] == ["total", "", "1"]
        tabs = screen.query_one(TabbedContent)
        assert tabs.active == "usage-session"
        await pilot.press("3")
        assert tabs.active == "usage-all"
        await pilot.press("escape")
        assert not isinstance(app.screen, UsageScreen)
        await type_and_send(pilot, "/usage weekly")
        assert not isinstance(app.screen, UsageScreen)
        await type_and_send(pilot, "/usage folder")
        assert cast(UsageScreen, app.screen).query_one(TabbedContent).active == "usage-folder"


async def test_cache_hit_in_status_line_and_escalation_pane(milk_home: Any) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        bus = app.runtime.bus
        bus.publish(ev.Usage(role="primary", model="m", prompt_tokens=200, completion_tokens=40,
                             cache_read=700, cache_creation=100))  # fmt: skip
        bus.publish(ev.Usage(role="escalation", model="c", prompt_tokens=10, completion_tokens=90,
                             cache_read=30, cost_usd=0.0123))  # fmt: skip
        status = app.screen.query_one(StatusLine)
        await until(pilot, lambda: "cache 70%" in status.plain)
        assert "│ primary ↑1.0k↓40 cache 70%" in status.plain
        assert "│ escalation ↑40↓90 $0.0123 cache 75%" in status.plain
        # 80 columns: the line fits, the totals and costs stay.
        shown = status.render().plain
        assert len(shown) <= status.content_size.width
        assert "primary ↑1.0k↓40" in shown and "$0.0123" in shown
        pane = app.screen.query_one(EscalationPane)
        pane._redraw()
        assert "cache 75%" in str(pane.body.render())


def _seed_days(pilot: Pilot[Any]) -> None:
    """Six days of another folder's usage, with cache reads, before today's demo turns."""
    app = cast(MilkApp, pilot.app)
    with app.runtime.db.transaction() as conn:
        for day in range(6, 0, -1):
            usage = [
                TokenUsage("qwen-coder", "primary", 900 + 300 * day, 200, 4000 - 500 * day),
                TokenUsage("claude-sonnet", "escalation", 300, 900, 2000, 400, 0.02 * day),
            ]
            append(conn, "elsewhere", "/tmp/other", day, usage, ts=NOW - day * DAY_S)


async def _seeded(pilot: Pilot[Any]) -> None:
    _seed_days(pilot)


class TestUsageSnapshots(SnapshotCase):
    def test_usage_session_80x24(self) -> None:
        assert self.shot(
            send("hello there", "list the files please"),
            send("design a distributed database with consensus and refactor it"),
            send("/usage"),
            on_screen(UsageScreen),
            until_shown(lambda app: bool(app.screen.query(PlotextPlot)), "plot mounted"),
            size=SMALL,
        )

    def test_usage_all_time_wide(self) -> None:
        assert self.shot(
            _seeded,
            send("hello there", "design a distributed database with consensus and refactor it"),
            send("/usage all"),
            on_screen(UsageScreen),
            size=LARGE,
        )
