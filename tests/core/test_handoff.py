"""Context-mode precedence and the fresh-start downgrade, row by row (docs/adr/0002-fresh-start-when-returning-on-stale-context.md)."""

from __future__ import annotations

import pytest

from milk_tui.config.settings import AgentConfig, AgentLimits, MilkConfig
from milk_tui.engine.handoff import plan_escalation
from milk_tui.model.session import Session, State, Turn


def T(role: str, agent: str, content: str = "x") -> Turn:
    return Turn(role, content, agent=agent, agent_name=agent)


def session_with(history: list[Turn], **kw) -> Session:
    s = Session(id="s", cwd="/w", history=history)
    for k, v in kw.items():
        setattr(s, k, v)
    return s


ESC_PAIR = [T("user", "escalation"), T("assistant", "escalation")]
LOCAL_PAIR = [T("user", "primary"), T("assistant", "primary")]


def test_first_when_never_escalated():
    p = plan_escalation(session_with(LOCAL_PAIR * 3), 8)
    assert p.mode == "first" and not p.downgraded


def test_resume_when_waiting_with_session_id():
    s = session_with(ESC_PAIR, escalation_session_id="abc", state=State.ESCALATION_WAITING)
    p = plan_escalation(s, 8)
    assert (p.mode, p.resume_session_id) == ("resume", "abc")


def test_continuation_when_no_local_turns_since():
    p = plan_escalation(session_with(ESC_PAIR, escalation_session_id="abc"), 8)
    assert p.mode == "continuation" and p.resume_session_id == "abc"


def test_returning_within_gap_keeps_resume():
    s = session_with(ESC_PAIR + LOCAL_PAIR * 7, escalation_session_id="abc")
    p = plan_escalation(s, 8)
    assert (p.mode, p.downgraded, p.resume_session_id) == ("returning", False, "abc")


def test_turn_gap_downgrades_to_fresh_start():
    s = session_with(ESC_PAIR + LOCAL_PAIR * 8, escalation_session_id="abc")
    p = plan_escalation(s, 8)
    assert p.mode == "first" and p.downgraded and p.reasons == ["turn_gap"]
    assert p.resume_session_id == "" and p.history_start == 2 and p.local_turns_since == 8


def test_zero_threshold_disables_turn_gap_only():
    s = session_with(ESC_PAIR + LOCAL_PAIR * 30, escalation_session_id="abc")
    assert plan_escalation(s, 0).mode == "returning"
    s.current_need, s.current_need_set_at = "new goal", 5
    p = plan_escalation(s, 0)
    assert p.mode == "first" and p.reasons == ["need_changed"]


@pytest.mark.parametrize(
    ("need", "set_at", "mode", "reasons"),
    [
        # recorded in user turn 3 (1-based), after the escalation answer at index 1
        pytest.param("other", 3, "first", ["need_changed"], id="changed-since-escalation"),
        # recorded in the escalation turn itself: the escalation saw it, no change
        pytest.param("goal", 1, "returning", [], id="set-in-escalation-turn"),
    ],
)
def test_need_changed_since_last_escalation_downgrades(
    need: str, set_at: int, mode: str, reasons: list[str]
):
    s = session_with(
        ESC_PAIR + LOCAL_PAIR,
        escalation_session_id="abc",
        current_need=need,
        current_need_set_at=set_at,
    )
    p = plan_escalation(s, 8)
    assert (p.mode, p.reasons) == (mode, reasons)


def test_both_reasons_reported():
    s = session_with(
        ESC_PAIR + LOCAL_PAIR * 9,
        escalation_session_id="abc",
        current_need="g",
        current_need_set_at=10,
    )
    assert plan_escalation(s, 8).reasons == ["need_changed", "turn_gap"]


def test_http_escalation_without_session_id_detects_returning_from_history():
    s = session_with(ESC_PAIR + LOCAL_PAIR)
    p = plan_escalation(s, 8)
    assert p.mode == "returning" and p.resume_session_id == ""


def test_resume_and_continuation_never_downgraded():
    s = session_with(
        ESC_PAIR,
        escalation_session_id="abc",
        state=State.ESCALATION_WAITING,
        current_need="g",
        current_need_set_at=3,
    )
    assert plan_escalation(s, 1).mode == "resume"


def test_forced_fresh_scopes_history_to_boundary():
    s = session_with(LOCAL_PAIR + ESC_PAIR + LOCAL_PAIR, escalation_session_id="abc")
    p = plan_escalation(s, 8, forced_fresh=True)
    assert p.mode == "first" and p.history_start == 4 and not p.resume_session_id


@pytest.mark.parametrize(
    ("global_v", "per_agent", "expected"),
    [(8, None, 8), (5, None, 5), (5, 3, 3), (5, -1, 0), (0, None, 0), (-2, None, 0), (0, 4, 4)],
)
def test_threshold_resolution_design_5_2(global_v, per_agent, expected):
    cfg = MilkConfig(returning_fresh_start_local_turns=global_v)
    ac = AgentConfig(name="c", limits=AgentLimits(returning_fresh_start_local_turns=per_agent))
    assert cfg.resolve_returning_fresh_start(ac) == expected
