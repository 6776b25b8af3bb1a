"""The escalation context: static and dynamic blocks, need age (docs/adr/0004-need-position-and-staleness.md), re-injection."""

from __future__ import annotations

import pytest

from milk_tui.engine.escalation_context import (
    BRIEF_HEADER,
    NEED_HEADER,
    PRIMARY_ACTIVITY_HEADER,
    PRIOR_SUMMARY_HEADER,
    STALE_NEED_HEADER,
    build_dynamic_context,
    build_static_context,
    identity_block,
    orientation_for_http,
    should_inject_memory_instructions,
)
from milk_tui.model.session import ESCALATION, PRIMARY, Session, Turn
from milk_tui.model.tags import memory_instruction, need_instruction

FACTS = "[Remembered facts]\n- the user prefers tabs\n"


def _session(**kw: object) -> Session:
    s = Session(id="s1", cwd="/tmp")
    for k, v in kw.items():
        setattr(s, k, v)
    return s


def _handed_off(brief: str, need: str, prior: str, local: str) -> Session:
    """A session after a hand-off: a brief, a need from the first turn, both summaries."""
    return _session(
        escalation_brief=brief,
        current_need=need,
        current_need_set_at=1,
        last_escalation_summary=prior,
        last_local_summary=local,
    )


def _history(n: int) -> list[Turn]:
    out = []
    for i in range(n):
        out.append(Turn("user" if i % 2 == 0 else "assistant", f"t{i}", agent=PRIMARY))
    return out


# ----- static -------------------------------------------------------------------------


def test_identity_block_header_purpose_and_blank_line() -> None:
    text = identity_block()
    assert text.startswith("[Milk agent context]\n")
    assert text.endswith("\n\n")
    low = text.lower()
    assert "background" in low and "run_in_background" in low
    assert "milk" in low and "memory" in low


def test_static_first_has_identity_instructions_then_facts_in_order() -> None:
    text = build_static_context("n0nce123", FACTS, "first", True, "qwen", "claude")
    ident, need = identity_block(), need_instruction("n0nce123")
    mem = memory_instruction("n0nce123", "qwen", "claude")
    assert text == ident + need + mem + FACTS
    assert "<milk:need:n0nce123>" in text and "@qwen: " in text and "@claude: " in text


def test_static_without_injection_is_identity_only() -> None:
    for mode in ("first", "returning", "resume", "continuation"):
        assert build_static_context("n", FACTS, mode, False, "p", "e") == identity_block()


def test_static_continuation_sends_instructions_when_due() -> None:
    """A due re-injection on Continuation is sent."""
    text = build_static_context("abc", FACTS, "continuation", True, "p", "e")
    assert need_instruction("abc") in text and FACTS in text


# ----- dynamic -----------------------------------------------------------------------


def test_first_full_order_and_exact_bytes() -> None:
    s = _handed_off("fix the build", "ship v2", "User: a\n", "User: b\nAssistant (primary): c\n")
    s.history = _history(1)
    text = build_dynamic_context(s, "first")
    assert text == (
        f"{BRIEF_HEADER}\nfix the build\n\n"
        f"{NEED_HEADER}\nship v2\n\n"
        f"{PRIOR_SUMMARY_HEADER}\nUser: a\n\n\n"
        f"{PRIMARY_ACTIVITY_HEADER}\nUser: b\nAssistant (primary): c\n\n"
    )
    assert s.last_local_summary_injected == s.last_local_summary


def test_returning_has_brief_and_need_but_never_prior_summary() -> None:
    s = _handed_off("brief!", "goal", "PRIOR", "LOCAL")
    text = build_dynamic_context(s, "returning")
    assert BRIEF_HEADER in text and "goal" in text and "LOCAL" in text
    assert PRIOR_SUMMARY_HEADER not in text and "PRIOR" not in text


@pytest.mark.parametrize("mode", ["resume", "continuation"])
def test_resume_and_continuation_only_changed_primary_activity(mode: str) -> None:
    s = _handed_off("brief!", "goal", "PRIOR", "LOCAL\n")
    assert build_dynamic_context(s, mode) == f"{PRIMARY_ACTIVITY_HEADER}\nLOCAL\n\n"
    # unchanged since injected → nothing
    assert build_dynamic_context(s, mode) == ""
    s.last_local_summary = ""
    assert build_dynamic_context(s, mode) == ""


def test_activity_block_mutation_is_shared_between_modes() -> None:
    s = _session(last_local_summary="L1")
    assert "L1" in build_dynamic_context(s, "returning")
    assert build_dynamic_context(s, "returning") == ""
    s.last_local_summary = "L2"
    assert "L2" in build_dynamic_context(s, "resume")


def test_empty_session_gives_empty_dynamic() -> None:
    assert build_dynamic_context(_session(), "first") == ""


# ----- need age (set_at is the 1-based user-turn position) -------------------------------


@pytest.mark.parametrize(
    ("history_len", "set_at", "stale"),
    [(6, 2, True), (4, 4, False), (5, 4, False), (5, 3, True), (0, 0, False), (9, 0, False)],
)
def test_need_label_follows_turns_ago(history_len: int, set_at: int, stale: bool) -> None:
    s = _session(current_need="the goal", current_need_set_at=set_at)
    s.history = _history(history_len)
    if set_at:
        assert s.need_turns_ago() == history_len + 2 - set_at
    text = build_dynamic_context(s, "first")
    header = STALE_NEED_HEADER if stale else NEED_HEADER
    assert text == f"{header}\nthe goal\n\n"


def test_need_recorded_in_pending_turn_goes_stale_after_three_more_entries() -> None:
    """turnsAgo counts history entries (user and assistant alike), pending turn included."""
    s = _session()
    s.history = _history(2)
    assert s.record_need("new goal")  # set during the pending (3rd) turn → set_at 3
    assert s.current_need_set_at == 3
    labels = []
    for _ in range(4):
        labels.append(STALE_NEED_HEADER in build_dynamic_context(s, "first"))
        s.history.append(Turn("user", "x"))
    assert labels == [False, False, False, True]


# ----- HTTP orientation ---------------------------------------------------------------


def test_http_orientation_is_stateless_and_always_has_activity() -> None:
    s = _session(escalation_brief="b", last_escalation_summary="PRIOR", last_local_summary="LOCAL")
    first = orientation_for_http(s, "first")
    assert first == orientation_for_http(s, "first")
    assert "LOCAL" in first and "PRIOR" in first
    assert s.last_local_summary_injected == ""
    ret = orientation_for_http(s, "returning")
    assert "LOCAL" in ret and "PRIOR" not in ret and BRIEF_HEADER in ret
    assert orientation_for_http(s, "resume") == ret


# ----- re-injection ------------------------------------------------------------------


def _escalation_answers(s: Session, n: int, size: int = 10) -> None:
    for _ in range(n):
        s.history.append(Turn("user", "q", agent=ESCALATION))
        s.history.append(Turn("assistant", "x" * size, agent=ESCALATION))


def test_not_resuming_always_injects() -> None:
    assert should_inject_memory_instructions(_session(), False, 0, 0)


def test_turn_threshold() -> None:
    s = _session()
    _escalation_answers(s, 19)
    assert not should_inject_memory_instructions(s, True, 20, 40000)
    _escalation_answers(s, 1)
    assert should_inject_memory_instructions(s, True, 20, 40000)
    s.memory_instruction_injected_at = s.escalation_turn_count()
    assert not should_inject_memory_instructions(s, True, 20, 40000)


def test_byte_threshold_counts_output_since_marker() -> None:
    s = _session()
    _escalation_answers(s, 2, size=30000)
    s.memory_instruction_injected_at = 1  # only the second answer (30000 B) counts
    assert not should_inject_memory_instructions(s, True, 20, 40000)
    _escalation_answers(s, 1, size=10000)
    assert should_inject_memory_instructions(s, True, 20, 40000)


def test_both_thresholds_off_never_reinjects_when_resuming() -> None:
    s = _session()
    _escalation_answers(s, 50, size=5000)
    assert not should_inject_memory_instructions(s, True, 0, 0)
    assert should_inject_memory_instructions(s, True, 0, 1)
