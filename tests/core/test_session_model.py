"""History queries, summary bricks and need arithmetic (docs/adr/0004-need-position-and-staleness.md)."""

from __future__ import annotations

from milk_tui.model.session import Session, ToolCallRecord, Turn, build_brick, ends_with_question


def T(role, agent, content="x", **kw):
    return Turn(role, content, agent=agent, agent_name=agent, **kw)


def S(*turns, **kw):
    s = Session(id="s", cwd="/w", history=list(turns))
    for k, v in kw.items():
        setattr(s, k, v)
    return s


def test_boundaries_count_assistant_turns_only():
    s = S(T("user", "primary"), T("assistant", "primary"), T("user", "escalation"))
    assert s.last_escalation_boundary() == 0 and s.escalation_ever_active()
    # ever-active but no escalation answer: every primary answer counts as "since"
    assert s.local_turns_since_last_escalation() == 1


def test_local_turns_since_last_escalation():
    s = S(
        T("user", "escalation"),
        T("assistant", "escalation"),
        T("user", "primary"),
        T("assistant", "primary"),
        T("user", "primary"),
        T("assistant", "primary"),
    )
    assert s.last_escalation_boundary() == 2 and s.local_turns_since_last_escalation() == 2
    assert (
        S(T("user", "primary"), T("assistant", "primary")).local_turns_since_last_escalation() == 0
    )


def test_need_changed_since_last_escalation_pins():
    esc_then_local = [
        T("user", "escalation"),
        T("assistant", "escalation"),
        T("user", "primary"),
        T("assistant", "primary"),
    ]
    assert S(
        *esc_then_local, current_need="g", current_need_set_at=4
    ).need_changed_since_last_escalation()
    local_then_esc = [
        T("user", "primary"),
        T("assistant", "primary"),
        T("user", "escalation"),
        T("assistant", "escalation"),
    ]
    assert not S(
        *local_then_esc, current_need="g", current_need_set_at=2
    ).need_changed_since_last_escalation()
    assert not S(
        T("user", "primary"), current_need="g", current_need_set_at=1
    ).need_changed_since_last_escalation()


def test_record_need_uses_pending_position_and_is_idempotent():
    s = S(T("user", "primary"), T("assistant", "primary"))
    assert s.record_need("fix login") and s.current_need_set_at == 3
    assert not s.record_need("fix login") and not s.record_need("   ")


def test_staleness_label_arithmetic():
    s = S(*[T("user", "primary")] * 6, current_need="g", current_need_set_at=2)
    assert s.need_turns_ago() == 6 and s.need_is_stale()
    s = S(*[T("user", "primary")] * 4, current_need="g", current_need_set_at=4)
    assert s.need_turns_ago() == 2 and not s.need_is_stale()
    s = S(*[T("user", "primary")] * 5, current_need="g", current_need_set_at=4)
    assert s.need_turns_ago() == 3 and not s.need_is_stale()
    assert not S(current_need="g", current_need_set_at=0).need_is_stale()


def test_bricks_collapse_tool_runs_and_trim_oldest():
    turns = [
        T("user", "primary", "q1"),
        T(
            "assistant",
            "primary",
            "",
            tool_calls=[ToolCallRecord("1", "read", "{}"), ToolCallRecord("2", "read", "{}")],
        ),
        T("assistant", "primary", "a1"),
        T("user", "escalation", "not mine"),
    ]
    brick = build_brick(turns, "primary", 10_000)
    assert (
        brick
        == "User: q1\n[Tool: read] {}\n  [1 more read calls collapsed]\nAssistant (primary): a1\n"
    )
    assert build_brick(turns, "primary", 30) == "Assistant (primary): a1\n"
    assert build_brick(turns, "primary", 0) == ""


def test_escalation_brick_is_sticky_below_200_bytes():
    s = S(T("user", "escalation"), T("assistant", "escalation", "y" * 300))
    s.rebuild_summary_bricks(12000)
    kept = s.last_escalation_summary
    assert kept and s.last_local_summary == ""
    s.history += [T("user", "primary", "q"), T("assistant", "primary", "a")]
    s.rebuild_summary_bricks(12000)
    assert s.last_escalation_summary == kept and "Assistant (primary): a" in s.last_local_summary


def test_ends_with_question():
    assert ends_with_question("Plan:\n- a\nShall I go on?  \n\n")
    assert not ends_with_question("Is it? No.\nDone.")
    assert not ends_with_question("")


def test_input_history_keeps_the_last_500_per_session(store):
    s = store.create("/w")
    for i in range(520):
        store.add_input(f"line {i}", s.id)
    store.add_input("line 519", s.id)  # consecutive duplicate: not stored again
    lines = store.inputs(s.id, limit=10_000)
    assert len(lines) == 500 and lines[0] == "line 20" and lines[-1] == "line 519"
