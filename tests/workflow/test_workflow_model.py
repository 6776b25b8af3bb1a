"""The workflow's plain parts: the verdict, the plan's limits and sprints, the state file."""

from __future__ import annotations

import pytest

from milk_tui.model.workflow import (
    VerdictEntry,
    WorkflowState,
    count_sprints,
    parse_limits,
    parse_verdict,
    split_questions,
    sprint_section,
)

PLAN = "## Spec\nx\n## Limits\nmax_passes: 3\n- max_sprints: 2\n## Sprint 1\na\n### detail\nb\n## Sprint 2\nc\n## Sprint 3\nd\n"


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("fine\ngood_to_go", "good_to_go"),
        ("I considered needs_refinement\nbut: Good To Go", "good_to_go"),
        ("good_to_go would be wrong\nneeds refinement", "needs_refinement"),
        ("**sprint_done**\n\n", "sprint_done"),
        ("no verdict here", "unknown"),
    ],
)
def test_the_last_verdict_line_decides(text: str, verdict: str) -> None:
    assert parse_verdict(text) == verdict


def test_limits_and_sprints() -> None:
    assert parse_limits(PLAN) == (3, 2)
    assert parse_limits("nothing") == (None, None)
    assert count_sprints(PLAN) == 3 and count_sprints("no sprints") == 1
    assert sprint_section(PLAN, 1) == "## Sprint 1\na\n### detail\nb"
    assert sprint_section(PLAN, 3) == "## Sprint 3\nd"
    assert sprint_section("just a plan", 1) == "just a plan"


def test_questions_or_a_plan() -> None:
    assert split_questions("1. which?") == (False, "1. which?")
    assert split_questions("NO_QUESTIONS\n## Spec\nx") == (True, "## Spec\nx")
    assert split_questions("we say NO_QUESTIONS inline")[0] is False


def test_the_state_round_trips_and_bad_ones_are_refused() -> None:
    st = WorkflowState(1, "sid", "task", {"designer": "a"}, role="evaluator", pass_=2)
    st.verdict_history.append(VerdictEntry(1, 1, "needs_refinement"))
    back = WorkflowState.from_json(st.to_json())
    assert back == st
    assert '"pass": 2' in st.to_json()
    for bad in ("{}", "[1]", '{"pass": 1}', st.to_json().replace('"evaluator"', '"boss"')):
        with pytest.raises(ValueError):
            WorkflowState.from_json(bad)
