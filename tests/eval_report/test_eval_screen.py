"""``/eval`` in the real app (demo agents, Pilot) and as SVG snapshots at 80×24 and 160×45."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from textual.pilot import Pilot
from textual.widgets import DataTable, Static
from textual_plotext import PlotextPlot
from tui.conftest import make_app, settle, type_and_send
from tui.snapshot_base import SMALL, SnapshotCase, on_screen, send

from eval_report.known import write_known
from milk_tui.eval.records import TURNS_FILE, TurnRecord, append
from milk_tui.tui.screens.eval_screen import EvalScreen
from milk_tui.tui.widgets.conversation import Conversation

HOSTILE = "fix\x1b]52;c;cHduZWQ=\x07\x1b[2J\r\u202eevil"
RUN = "20260101-000000"


def _rows(screen: EvalScreen, id: str) -> list[list[str]]:
    table = screen.query_one(f"#{id}", DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def _said(app: Any) -> str:
    return "\n".join(str(w.render()) for w in app.screen.query_one(Conversation).query(Static))


async def test_eval_screen_shows_the_newest_run(milk_home: Path, tmp_path: Path) -> None:
    write_known(milk_home / "eval" / "20251231-000000", modes=("routed",), started=1.0)
    write_known(milk_home / "eval" / RUN, started=2.0)
    other = write_known(tmp_path / "other", modes=("routed", "primary"))
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, app)
        await type_and_send(pilot, "/eval")
        screen = app.screen
        assert isinstance(screen, EvalScreen) and screen.report.folder.name == RUN
        premise = _rows(screen, "eval-premise")
        assert premise[0][:2] == ["primary share", "67%"]
        assert premise[1][1:] == ["0.25×", "over 3 turns"]
        assert [r[0] for r in _rows(screen, "eval-modes")] == ["routed", "primary", "escalation"]
        assert _rows(screen, "eval-confusion") == [["primary", "1", "0"], ["escalation", "1", "1"]]
        assert _rows(screen, "eval-wrong")[0][:4] == ["b", "1", "escalation", "primary"]
        assert _rows(screen, "eval-failed")[0][:3] == ["c", "routed", "1"]
        assert screen.query_one(PlotextPlot)
        await pilot.press("escape")
        assert not isinstance(app.screen, EvalScreen)
        await type_and_send(pilot, f"/eval {other}")
        screen = app.screen
        assert isinstance(screen, EvalScreen)
        assert screen.report.premise.cost_ratio.why == "escalation mode not run"
        assert _rows(screen, "eval-premise")[1][1:] == ["-", "escalation mode not run"]


async def test_no_run_yet_and_a_bad_folder_are_one_line(milk_home: Path) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await type_and_send(pilot, "/eval")
        assert not isinstance(app.screen, EvalScreen)
        assert "make one with: milk-tui eval run" in _said(app)
        await type_and_send(pilot, "/eval nowhere")
        assert not isinstance(app.screen, EvalScreen)
        assert "nowhere: no such folder" in _said(app)


async def test_hostile_turn_text_is_shown_inert(milk_home: Path) -> None:
    folder = write_known(milk_home / "eval" / RUN)
    append(folder / TURNS_FILE, TurnRecord(
        scenario="s" + HOSTILE, mode="routed", turn=0, prompt=HOSTILE, label="escalation",
        slot="primary", route_reason=HOSTILE))  # fmt: skip
    append(folder / TURNS_FILE, TurnRecord(
        scenario="t" + HOSTILE, mode="routed", turn=0, prompt="p", error=HOSTILE))  # fmt: skip
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, app)
        await type_and_send(pilot, "/eval")
        screen = cast(EvalScreen, app.screen)
        cells = [
            c for id in ("eval-wrong", "eval-failed") for row in _rows(screen, id) for c in row
        ]
        shown = "\n".join(cells)
        assert shown.count("␛]52;c;cHduZWQ=␇") >= 3  # prompt, reason, error
        for raw in ("\x1b", "\x07", "\r", "\u202e"):
            assert raw not in shown


async def _results(pilot: Pilot[Any]) -> None:
    import os

    write_known(Path(os.environ["MILK_HOME"]) / "eval" / RUN)


class TestEvalSnapshots(SnapshotCase):
    def test_eval_80x24(self) -> None:
        assert self.shot(_results, send("/eval"), on_screen(EvalScreen), size=SMALL)

    def test_eval_160x45(self) -> None:
        assert self.shot(_results, send("/eval"), on_screen(EvalScreen), size=(160, 45))
