"""A results folder with bad lines, an empty folder and unpriced runs: the report lists the
problems and still reports, never raises."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval_report.known import write_known
from milk_tui.eval.records import SCORES_FILE, TURNS_FILE, RunInfo, TurnRecord, append, write_run
from milk_tui.eval.report import build_report, report_json
from milk_tui.eval.report_text import markdown_report, text_report

BAD_TURNS = [
    "not json at all",
    json.dumps([1, 2]),
    json.dumps({"scenario": "x", "mode": "routed", "turn": "first", "prompt": "p"}),
    json.dumps({"scenario": "x", "mode": "routed", "turn": 0, "prompt": "p", "roles": [1]}),
    json.dumps({"scenario": "x", "mode": "routed", "turn": 1, "prompt": "p", "cost_usd": "1"}),
    '{"scenario": "x", "mode": "routed", "turn": 2, "prompt": "p", "cost_usd": NaN}',
    json.dumps({"scenario": "x", "mode": "routed", "turn": 3, "prompt": "p", "expected": 5}),
    json.dumps({"scenario": "x", "mode": "routed", "turn": 4, "prompt": "p", "label": "maybe"}),
    json.dumps({"mode": "routed", "turn": 5, "prompt": "p"}),
]
BAD_SCORES = [
    "{",
    json.dumps({"scenario": "a", "mode": "routed", "turn": 0, "criterion": "c", "weight": 1,
                "scoring": "scale_1_5", "raw": 4, "score": 4.0}),  # not normalised
    json.dumps({"scenario": "zz", "mode": "routed", "turn": 0, "criterion": "c", "weight": 1,
                "scoring": "binary", "score": 1.0}),  # no such turn
]  # fmt: skip


def test_bad_lines_are_listed_and_the_rest_reported(tmp_path: Path) -> None:
    folder = write_known(tmp_path / "run")
    with (folder / TURNS_FILE).open("a") as fh:
        fh.write("\n".join(BAD_TURNS) + "\n")
    with (folder / SCORES_FILE).open("a") as fh:
        fh.write("\n".join(BAD_SCORES) + "\n")
    report = build_report(folder)
    assert len(report.problems) == len(BAD_TURNS) + len(BAD_SCORES)
    assert any("turns.jsonl line 1" in p for p in report.problems)
    assert any("turn: str 'first'" in p for p in report.problems)
    assert any("cost_usd: float 'nan'" in p for p in report.problems)
    assert any("not normalised" in p for p in report.problems)
    assert any("zz routed turn 0" in p for p in report.problems)
    routed = report.mode("routed")
    assert routed is not None and routed.turns == 4  # the good lines, figures unchanged
    assert routed.quality == pytest.approx(0.625)
    json.loads(json.dumps(report_json(report), allow_nan=False))
    assert "Problems reading the results" in text_report(report)
    assert "## Problems reading the results" in markdown_report(report)


def test_an_empty_folder_reports(tmp_path: Path) -> None:
    report = build_report(tmp_path)
    assert report.modes == [] and report.turns == []
    assert any("no eval run here" in p for p in report.problems)
    assert any("turns.jsonl: missing" in p for p in report.problems)
    assert report.premise.primary_share.why == "routed mode not run"
    assert report.routing.agreement is None
    text = text_report(report)
    assert "no turn recorded" in text
    obj = report_json(report)
    assert obj["modes"] == {} and obj["turns"] == [] and obj["premise"]["cost_ratio"] is None


def test_named_modes_without_turns_and_unpriced_escalation(tmp_path: Path) -> None:
    write_run(tmp_path, RunInfo(started=1.0, modes=["routed", "escalation", "claude-code"],
                                scenarios_dir=""))  # fmt: skip
    for mode, slot in (("routed", "primary"), ("escalation", "escalation")):
        append(tmp_path / TURNS_FILE, TurnRecord("s", mode, 0, "p", slot=slot))
    report = build_report(tmp_path)
    assert [m.mode for m in report.modes] == ["routed", "escalation", "claude-code"]
    assert report.mode("claude-code").turns == 0  # type: ignore[union-attr]  # listed above
    assert report.premise.cost_ratio.value is None
    assert report.premise.cost_ratio.why == "escalation cost $0 over 1 turns (not priced)"
    assert report.premise.quality_ratio.why.startswith("no turn judged in both")


def test_a_bad_run_json_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    folder = write_known(tmp_path / "run")
    (folder / "run.json").write_text(
        '{"started": "yesterday", "modes": "routed", "scenarios_dir": ""}'
    )
    report = build_report(folder)
    assert report.run is None
    assert report.problems == ["run.json: started: str 'yesterday' is not a valid value"]
    assert "Eval report" in text_report(report) and report.mode("routed") is not None
