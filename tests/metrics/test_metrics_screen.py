"""``/metrics`` and ``/otel trim`` in the real app (demo agents, Pilot) and as SVG snapshots."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from textual.widgets import DataTable
from textual_plotext import PlotextPlot
from tui.conftest import FIXED_NOW, make_app, settle, type_and_send
from tui.snapshot_base import LARGE, SMALL, SnapshotCase, on_screen, send
from tui.snapshot_base import until as until_shown

from milk_tui.tui.screens.metrics_screen import MetricsScreen
from milk_tui.tui.widgets.conversation import Conversation


def lines(app: Any, kind: str) -> list[str]:
    items = app.main_screen.query_one(Conversation).items
    return [it.text for it in items if it.kind == kind]


def _seed(home: Path, n: int = 24, now: float = FIXED_NOW) -> None:
    """``n`` past turns of two agents, an hour apart, ending a day before ``now``."""
    out = []
    for i in range(n):
        claude = i % 3 == 0
        out.append({
            "v": 1, "kind": "turn", "ts": now - 86400 - (n - i) * 3600, "session": "s",
            "turn": i, "agent": "claude" if claude else "llama",
            "slot": "escalation" if claude else "primary", "rule": "default",
            "model": "m", "prompt_tokens": 1000 + 50 * i, "completion_tokens": 200 + i,
            "cache_read": 0, "cost_usd": 0.01 * (i % 5) if claude else 0.0,
            "seconds": 2.0 + (i % 7) * (3 if claude else 1), "first_token_seconds": 0.2 + i / 100,
            "tools": [{"name": "bash", "seconds": 0.1, "ok": i % 4 != 0}], "ok": i != 5,
            "cancelled": False, "error": "" if i != 5 else "HTTP 500",
        })  # fmt: skip
    (home / "otel").mkdir(exist_ok=True)
    (home / "otel" / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in out))


def _rows(screen: MetricsScreen) -> list[list[str]]:
    table = screen.query_one("#metrics-table", DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_a_real_turn_is_recorded_and_shown(milk_home: Any) -> None:
    _seed(milk_home, now=time.time())
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await type_and_send(pilot, "hello there")
        await settle(pilot, app)
        await type_and_send(pilot, "/metrics")
        screen = app.screen
        assert isinstance(screen, MetricsScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        rows = {r[0]: r for r in _rows(screen)}
        assert rows["llama"][1:3] == ["16", "1"] and rows["claude"][1:3] == ["8", "0"]
        assert rows["demo-local"][1] == "1"  # the turn just run
        assert screen.report is not None and len(screen.report.points) == 25
        await pilot.press("escape")
        # /otel trim keeps the last 7 days: the seeded turns are a day old, all kept
        await type_and_send(pilot, "/otel trim")
        assert lines(app, "notice")[-1].endswith("kept 25 turns of the last 7 days, removed 0")
        await type_and_send(pilot, "/otel trim 0")
        assert lines(app, "notice")[-1].endswith("kept 0 turns of the last 0 days, removed 25")
        await type_and_send(pilot, "/otel trim x")
        assert lines(app, "error")[-1].startswith("/otel: usage: /otel [trim [DAYS]]")
    assert os.path.getsize(milk_home / "otel" / "metrics.jsonl") == 0


class TestMetricsSnapshots(SnapshotCase):
    def test_metrics_80x24(self, milk_home: Any) -> None:
        _seed(milk_home)
        assert self.shot(
            send("/metrics"),
            on_screen(MetricsScreen),
            until_shown(lambda app: app.screen.report is not None, "the report loaded"),
            size=SMALL,
        )

    def test_metrics_wide(self, milk_home: Any) -> None:
        _seed(milk_home, n=60)
        assert self.shot(
            send("/metrics"),
            on_screen(MetricsScreen),
            until_shown(lambda app: bool(app.screen.query(PlotextPlot)), "plot mounted"),
            until_shown(lambda app: app.screen.report is not None, "the report loaded"),
            size=LARGE,
        )
