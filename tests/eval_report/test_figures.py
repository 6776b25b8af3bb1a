"""Every figure of the report on a results folder worked out by hand (known.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from eval_report.known import write_known
from milk_tui.eval.report import Report, build_report


@pytest.fixture
def report(tmp_path: Path) -> Report:
    return build_report(write_known(tmp_path / "run"))


def test_per_mode_figures(report: Report) -> None:
    assert [m.mode for m in report.modes] == ["routed", "primary", "escalation"]
    routed = report.mode("routed")
    assert routed is not None
    assert (routed.turns, routed.failed, routed.checked, routed.passed) == (4, 1, 3, 1)
    assert routed.pass_rate == pytest.approx(1 / 3)
    assert routed.quality == pytest.approx(0.625)
    assert routed.judged == 2
    assert routed.cost_usd == pytest.approx(0.11)
    assert (routed.prompt_tokens, routed.completion_tokens, routed.cached_tokens) == (190, 19, 150)
    assert routed.seconds == pytest.approx(3.5)
    assert routed.cache_hit_after_turn1 == pytest.approx(0.75)
    esc = report.mode("escalation")
    assert esc is not None
    assert esc.quality == pytest.approx(0.75) and esc.pass_rate is None
    assert esc.cache_hit_after_turn1 == pytest.approx(180 / 200)
    primary = report.mode("primary")
    assert primary is not None and primary.pass_rate == 1.0 and primary.quality is None


def test_turn_quality_weights_and_a_missing_score(report: Report) -> None:
    by_key = {(r.record.scenario, r.record.mode, r.record.turn): r for r in report.turns}
    # (3·1 + 1·0) / (3 + 1): the unscored weight-2 criterion is left out, not counted as 0.
    assert by_key[("a", "routed", 0)].quality == pytest.approx(0.75)
    assert by_key[("a", "routed", 1)].quality == pytest.approx(0.5)  # the later judge line
    assert by_key[("b", "routed", 0)].quality is None
    assert by_key[("c", "routed", 0)].passed is False  # failed: its ok check does not count


def test_premise(report: Report) -> None:
    p = report.premise
    assert p.primary_share.value == pytest.approx(2 / 3)
    assert p.primary_share.why == "2 of 3 answered routed turns"
    assert p.cost_ratio.value == pytest.approx(0.25)
    assert p.cost_ratio.why == "over 3 turns"
    assert p.quality_ratio.value == pytest.approx(0.625 / 0.75)
    assert p.quality_ratio.why == "over 2 turns"


def test_routing(report: Report) -> None:
    r = report.routing
    assert r.labelled == 3
    assert r.agreement == pytest.approx(2 / 3)
    assert r.escalation_recall == pytest.approx(0.5)
    assert r.escalation_precision == pytest.approx(1.0)
    assert r.confusion == {
        "primary": {"primary": 1, "escalation": 0},
        "escalation": {"primary": 1, "escalation": 1},
    }
    [wrong] = r.wrong
    assert (wrong.scenario, wrong.turn, wrong.label, wrong.slot) == (
        "b",
        0,
        "escalation",
        "primary",
    )
    assert wrong.route_reason == "short prompt"


def test_failed_turns_are_listed(report: Report) -> None:
    [failed] = report.failed
    assert failed.scenario == "c" and failed.error.startswith("primary: server closed")
    assert report.problems == []


def test_without_escalation_mode_the_ratios_say_why(tmp_path: Path) -> None:
    report = build_report(write_known(tmp_path / "run", modes=("routed", "primary")))
    p = report.premise
    assert p.primary_share.value == pytest.approx(2 / 3)
    assert (p.cost_ratio.value, p.cost_ratio.why) == (None, "escalation mode not run")
    assert (p.quality_ratio.value, p.quality_ratio.why) == (None, "escalation mode not run")
