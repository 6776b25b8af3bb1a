"""History → messages (labels for the other agent's turns) and the budget trimmer."""

from __future__ import annotations

from milk_tui.agents.base import ChatMessage
from milk_tui.engine.context import assemble_messages
from milk_tui.engine.history import build_agent_history, trim_history
from milk_tui.model.session import Session, Turn


def T(role, agent, content, name=None):
    return Turn(role, content, agent=agent, agent_name=name or f"test-{agent}")


MIXED = [
    T("user", "primary", "q1"),
    T("assistant", "primary", "a1"),
    T("user", "escalation", "q2"),
    T("assistant", "escalation", "esc a"),
    T("user", "primary", "q3"),
    T("assistant", "primary", "a3"),
]


def test_labels_as_pinned_in_go():
    msgs = build_agent_history(MIXED, "primary")
    assert [m.role for m in msgs] == ["user", "assistant", "user", "system", "user", "assistant"]
    assert msgs[0].content == "[user to test-primary] q1"
    assert msgs[3].content == "[test-escalation as escalation] esc a"


def test_empty_assistant_skipped_and_other_tool_results_dropped():
    h = [
        T("user", "primary", "q"),
        T("assistant", "primary", ""),
        Turn("tool_result", "r", agent="escalation"),
    ]
    assert [m.role for m in build_agent_history(h, "primary")] == ["user"]


def test_trimmer_restarts_at_user_and_keeps_pinned_blocks():
    s = Session(
        id="s",
        cwd="/",
        history=[
            T("user", "primary", "q" * 50),
            T("assistant", "primary", "a" * 50),
            T("user", "primary", "r" * 50),
            T("assistant", "primary", "b" * 50),
        ],
    )
    built = assemble_messages(
        s,
        self_agent="primary",
        pinned=["NEED " * 20, "FACTS " * 20],
        budget=400,
        system_prompt="sys",
    )
    roles = [m.role for m in built.messages]
    assert roles[:2] == ["system", "system"] and built.trimmed
    assert built.messages[2].role == "user" and built.messages[2].content.endswith("r" * 50)


def test_overhead_at_or_above_budget_trims_all_history():
    msgs = [ChatMessage("user", "x" * 10), ChatMessage("assistant", "y" * 10)]
    out, trimmed = trim_history(msgs, budget=100, overhead=150)
    assert out == [] and trimmed


def test_escalation_drops_primary_turns_before_its_own():
    msgs = build_agent_history(
        [
            T("user", "escalation", "E1" * 30),
            T("assistant", "escalation", "A1" * 30),
            T("user", "primary", "P1" * 30),
            T("assistant", "primary", "B1" * 30),
            T("user", "escalation", "E2" * 30),
            T("assistant", "escalation", "A2" * 30),
        ],
        "escalation",
    )
    out, trimmed = trim_history(msgs, budget=300, overhead=0, other_agents_first=True)
    assert trimmed
    joined = " ".join(m.content for m in out)
    assert "A1" in joined and "P1" not in joined and "B1" not in joined
