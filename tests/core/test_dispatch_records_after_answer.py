"""Recording the user turn after the agent answers (docs/adr/0001-record-the-user-turn-after-the-agent-answers.md).

The invariant: the history an agent is given never contains the current prompt; the user
turn is recorded only after the agent succeeds; a failed turn records nothing.
"""

from __future__ import annotations

from milk_tui.agents.base import AgentError, Finished, TextChunk
from milk_tui.engine.history import build_agent_history
from milk_tui.model.session import Turn
from milk_tui.testing.scripted_agent import say


async def test_history_given_to_agent_never_contains_current_prompt(rig):
    for i in range(3):
        rig.primary.push(say(f"a{i}"))
        await rig.dispatcher.run_turn(f"question number {i} about the codebase")
    last = rig.primary.requests[-1]
    contents = [m.content for m in last.messages]
    assert not any("question number 2" in c for c in contents)
    assert any("question number 1" in c for c in contents)
    # the final message handed over is the previous answer, not a pending user turn
    assert last.messages[-1].role == "assistant" and last.messages[-1].content == "a1"


async def test_user_turn_recorded_once_and_only_after_success(rig):
    seen: list[int] = []

    async def probe():
        # While the agent streams, the session must not yet hold the user turn.
        seen.append(len(rig.session.history))
        yield TextChunk("ok")
        yield Finished()

    rig.primary.stream = lambda req: probe()  # type: ignore[method-assign]
    out = await rig.dispatcher.run_turn("hello there, how are you doing")
    assert out.ok and seen == [0]
    roles = [(t.role, t.agent) for t in rig.session.history]
    assert roles == [("user", "primary"), ("assistant", "primary")]
    assert [(t.role, t.content) for t in rig.reload().history] == [
        ("user", "hello there, how are you doing"),
        ("assistant", "ok"),
    ]


async def test_failed_turn_records_nothing_and_next_turn_works(rig):
    rig.primary.push([TextChunk("partial "), AgentError("agent 'llama': HTTP 500: boom")])
    out = await rig.dispatcher.run_turn("first try at this question")
    assert not out.ok and "HTTP 500" in out.error
    assert rig.session.history == [] and rig.reload().history == []
    failed = rig.of("turn_failed")
    assert failed and failed[-1].error.startswith("agent 'llama'")
    rig.primary.push(say("fine now"))
    out = await rig.dispatcher.run_turn("first try at this question")
    assert out.ok and len(rig.reload().history) == 2


async def test_empty_answer_is_an_error_and_records_nothing(rig):
    rig.primary.push(say())
    out = await rig.dispatcher.run_turn("say nothing at all please")
    assert not out.ok and "empty reply" in out.error and "llama" in out.error
    assert rig.reload().history == []


def test_history_builder_has_no_tail_logic():
    """Step 4: builders are plain iteration — a trailing user turn is kept as-is."""
    h = [
        Turn("user", "q1", agent="primary", agent_name="llama"),
        Turn("assistant", "a1", agent="primary", agent_name="llama"),
        Turn("user", "q2", agent="escalation", agent_name="claude"),
    ]
    msgs = build_agent_history(h, "primary")
    assert [m.role for m in msgs] == ["user", "assistant", "user"]
    assert msgs[-1].content == "[user to claude] q2"


async def test_repeat_guard_not_fired_by_the_pending_turn(rig):
    """Step 0.4: an immediate first ask is not a repeat because the prompt is not in history."""
    rig.primary.push(say("answer"))
    out = await rig.dispatcher.run_turn("where does the build put its arm64 machines")
    assert out.ok and out.slot == "primary" and not out.escalation_reason


async def test_need_set_during_turn_uses_pending_position(rig):
    """Step 1 (turnsAgo off-by-one): set_at is the 1-based position of the pending user turn."""
    rig.primary.push(say("a"))
    await rig.dispatcher.run_turn("first question about the parser")
    nonce = rig.session.primary_nonce
    rig.primary.push(
        [TextChunk(f"<milk:need:{nonce}>fix the parser</milk:need:{nonce}>ok"), Finished()]
    )
    await rig.dispatcher.run_turn("now fix the parser bug please")
    s = rig.reload()
    assert s.current_need == "fix the parser" and s.current_need_set_at == 3
    assert s.history[2].content == "now fix the parser bug please"


def test_fresh_escalation_history_is_plain_slice_from_boundary():
    """Step 6: one builder with a start index serves both the full and the fresh history."""
    h = [
        Turn("user", "old", agent="escalation", agent_name="claude"),
        Turn("assistant", "old answer", agent="escalation", agent_name="claude"),
        Turn("user", "q", agent="primary", agent_name="llama"),
        Turn("assistant", "a", agent="primary", agent_name="llama"),
    ]
    fresh = build_agent_history(h, "escalation", start=2)
    assert [m.content for m in fresh] == ["[user to llama] q", "[llama as primary] a"]
    assert len(build_agent_history(h, "escalation")) == 4


async def test_self_escalation_hands_over_history_without_the_current_prompt(rig):
    """The escalation agent of a hand-off sees only answered turns; both halves commit at once."""
    from milk_tui.config.settings import AgentConfig
    from milk_tui.engine.dispatch import AgentSlot

    rig.dispatcher.escalation = AgentSlot(
        "escalation",
        AgentConfig(name="deep", provider="openrouter", url="http://x"),
        rig.escalation,
    )
    rig.primary.push(say("earlier answer"))
    await rig.dispatcher.run_turn("an earlier question about the cache layer")
    rig.primary.push(say("over to deep", escalation_reason="needs a bigger model"))
    rig.escalation.push(say("deep answer"))
    out = await rig.dispatcher.run_turn("redesign the cache invalidation protocol")
    assert out.ok and out.slot == "escalation"
    req = rig.escalation.requests[-1]
    history = req.messages[1:]  # after the pinned orientation (whose need is the prompt)
    assert req.messages[0].content.startswith("[Escalation brief from primary agent]")
    assert not any("redesign the cache" in m.content for m in history)
    assert any("an earlier question" in m.content for m in history)
    assert [(t.role, t.agent) for t in rig.reload().history][2:] == [
        ("user", "primary"),
        ("assistant", "primary"),
        ("user", "escalation"),
        ("assistant", "escalation"),
    ]


async def test_failed_hand_off_records_neither_half(rig):
    rig.primary.push(say("over", escalation_reason="too hard"))
    rig.escalation.push([AgentError("claude: API Error: 529 overloaded")])
    out = await rig.dispatcher.run_turn("redesign the cache invalidation protocol")
    assert not out.ok and rig.reload().history == [] and rig.session.current_need == ""
