"""Dispatcher bookkeeping across hand-offs, on scripted agents (the fast layer)."""

from __future__ import annotations

import sqlite3

from milk_tui.agents.base import AgentError, Finished, SessionNotFound, TextChunk, UsageEvent
from milk_tui.engine.repeat_guard import ESCALATION_REASON as REPEATED_PROMPT_REASON
from milk_tui.model.session import State
from milk_tui.testing.scripted_agent import Hold, say
from milk_tui.testing.waits import until

LONG = "please explain in detail how the scheduler handles retries"


async def test_self_escalation_sets_need_fallback_and_hands_off(rig):
    rig.primary.push(say("handing over", escalation_reason="too hard for me"))
    rig.escalation.push(say("deep answer", session_id="cli-1"))
    out = await rig.dispatcher.run_turn(LONG)
    assert out.ok and out.slot == "escalation"
    s = rig.reload()
    assert [(t.role, t.agent) for t in s.history] == [
        ("user", "primary"),
        ("assistant", "primary"),
        ("user", "escalation"),
        ("assistant", "escalation"),
    ]
    # No need was emitted, so the prompt became the need before the hand-off;
    # it belongs to the answered exchange, the escalation's user turn (position 3).
    assert s.current_need == LONG and s.current_need_set_at == 3
    assert not s.need_is_stale() and not s.need_changed_since_last_escalation()
    assert s.escalation_session_id == "cli-1"
    started = rig.of("escalation_started")[-1]
    assert started.mode == "first" and started.brief == "too hard for me"
    assert "too hard for me" in rig.escalation.requests[-1].append_system_prompt
    assert LONG in rig.escalation.requests[-1].append_system_prompt  # the need block


async def test_first_escalation_brief_falls_back_to_prompt(rig):
    rig.escalation.push(say("ok"))
    await rig.dispatcher.run_turn(LONG, force="escalate")
    started = rig.of("escalation_started")[-1]
    assert started.brief == LONG  # with no stated reason the brief is the prompt


async def test_question_sets_waiting_then_resume(rig):
    rig.escalation.push(
        say("Shall I continue?", session_id="cli-9"), say("done", session_id="cli-9")
    )
    await rig.dispatcher.run_turn(LONG, force="escalate")
    assert rig.reload().state == State.ESCALATION_WAITING
    rig.dispatcher.flags.auto_sticky = False
    await rig.dispatcher.run_turn("yes go ahead")
    started = rig.of("escalation_started")[-1]
    assert (
        started.mode == "resume"
        and started.resume
        and rig.escalation.requests[-1].resume_session_id == "cli-9"
    )
    assert rig.reload().state == State.ROUTING


async def test_stale_return_after_turn_gap_is_fresh_start(rig):
    rig.escalation.push(say(" ".join(f"deep answer {i}" for i in range(20)), session_id="cli-1"))
    await rig.dispatcher.run_turn(LONG, force="escalate")
    rig.dispatcher.flags.auto_sticky = False
    for i in range(8):
        rig.primary.push(say(f"local {i}"))
        await rig.dispatcher.run_turn(f"local question number {i} about files")
    rig.escalation.push(say("again", session_id="cli-2"))
    await rig.dispatcher.run_turn("back to the hard problem now", force="escalate")
    started = rig.of("escalation_started")[-1]
    assert (
        started.mode == "first" and started.downgraded and started.downgrade_reasons == ["turn_gap"]
    )
    assert started.local_turns_since == 8
    req = rig.escalation.requests[-1]
    assert req.resume_session_id == ""
    assert "[Prior escalation session summary" in req.append_system_prompt
    assert rig.reload().escalation_session_id == "cli-2"


async def test_session_not_found_falls_back_to_fresh(rig):
    rig.escalation.push(say("Question?", session_id="cli-1"))
    await rig.dispatcher.run_turn(LONG, force="escalate")
    rig.escalation.push(
        [SessionNotFound("No conversation found with session ID: cli-1")],
        say("fresh answer", session_id="cli-3"),
    )
    out = await rig.dispatcher.run_turn("yes")
    assert out.ok
    modes = [e.mode for e in rig.of("escalation_started")]
    assert modes[-2:] == ["resume", "first"]
    assert rig.escalation.requests[-1].resume_session_id == ""
    assert rig.reload().escalation_session_id == "cli-3"
    assert any("starting fresh" in n.message for n in rig.of("notice"))


async def test_escalation_failure_restores_state_and_records_nothing(rig):
    rig.escalation.push([TextChunk("part"), AgentError("claude: API Error: 401 bad key")])
    out = await rig.dispatcher.run_turn(LONG, force="escalate")
    assert not out.ok and "401" in out.error
    s = rig.reload()
    assert s.history == [] and s.state == State.ROUTING and s.escalation_brief == ""
    assert rig.session.state == State.ROUTING


async def test_repeated_prompt_self_escalates_without_calling_primary(rig):
    q = "where does the integration build server keep its settings"  # no difficulty signal
    rig.primary.push(say("in /etc"))
    await rig.dispatcher.run_turn(q)
    n_calls = len(rig.primary.requests)
    rig.escalation.push(say("real cause"))
    out = await rig.dispatcher.run_turn(q)
    assert out.ok and out.slot == "escalation" and len(rig.primary.requests) == n_calls
    assert rig.of("escalation_started")[-1].brief == REPEATED_PROMPT_REASON
    # the re-ask also taught the router (engine/router_learning.py): the next one moves
    assert any("learned: prompts like" in n.message for n in rig.of("notice"))


async def test_cancel_mid_stream_records_nothing_and_restores_need(rig):
    rig.primary.push(say("a"))
    await rig.dispatcher.run_turn("first question about config files")
    nonce = rig.session.primary_nonce
    hold = Hold()  # never released: the turn is mid-stream until it is cancelled
    rig.primary.push(
        [
            TextChunk(f"<milk:need:{nonce}>new goal</milk:need:{nonce}>"),
            TextChunk("word "),
            hold,
            *[TextChunk("word ") for _ in range(100)],
            Finished(),
        ]
    )
    task = rig.dispatcher.submit("second question about config files")
    await hold.reached.wait()
    await until(None, lambda: rig.session.current_need == "new goal", what="the live need")
    assert rig.dispatcher.cancel()
    out = await task
    assert out.cancelled and rig.session.current_need == ""
    assert len(rig.reload().history) == 2
    assert rig.of("turn_failed")[-1].cancelled
    rig.primary.push(say("works"))
    assert (await rig.dispatcher.run_turn("third question")).ok


async def test_full_disk_fails_cleanly_and_keeps_session(rig, db):
    rig.primary.push(say("a"))
    await rig.dispatcher.run_turn("first question here")
    pages = db.conn.execute("PRAGMA page_count").fetchone()[0]
    db.conn.execute(f"PRAGMA max_page_count = {pages}")
    rig.primary.push(say("x" * 200_000))
    out = await rig.dispatcher.run_turn("write a lot please")
    assert not out.ok and "full" in out.error
    assert len(rig.session.history) == 2
    db.conn.execute("PRAGMA max_page_count = 1073741823")
    assert len(rig.reload().history) == 2
    rig.primary.push(say("b"))
    assert (await rig.dispatcher.run_turn("and again")).ok
    assert isinstance(db.conn, sqlite3.Connection)


async def test_usage_is_recorded_per_role(rig):
    rig.escalation.push(
        [
            TextChunk("x"),
            UsageEvent(model="opus", prompt_tokens=10, completion_tokens=5, cost_usd=0.01),
            UsageEvent(model="haiku", prompt_tokens=3, completion_tokens=1, role_suffix="subagent"),
            Finished(),
        ]
    )
    await rig.dispatcher.run_turn(LONG, force="escalate")
    s = rig.reload()
    assert s.tokens[("opus", "escalation")].prompt == 10
    assert s.tokens[("haiku", "escalation:subagent")].completion == 1
    assert s.tokens_by_role_prefix("escalation").prompt == 13


async def test_sticky_escalation_after_escalated_turn(rig):
    rig.escalation.push(say("esc"), say("esc again"))
    await rig.dispatcher.run_turn("refactor entire codebase")  # keyword: escalated, sticky
    out = await rig.dispatcher.run_turn("follow-up question for you")
    assert out.slot == "escalation"
    rig.primary.push(say("back"))
    assert rig.dispatcher.primary_command("") is None
    out = await rig.dispatcher.run_turn("a local question now")
    assert out.slot == "primary"


async def test_both_slots_replies_are_shown_live(rig):
    """A turn's requests are the ones an interactive front end paints as they arrive
    (engine/cooperative.py waits for their first text's paint); a router's classifier or
    an agent called as a tool builds its own, which are not."""
    rig.primary.push(say("handing over", escalation_reason="too hard for me"))
    rig.escalation.push(say("deep answer", session_id="cli-1"))
    await rig.dispatcher.run_turn(LONG)
    assert rig.primary.requests[-1].shown_live and rig.escalation.requests[-1].shown_live
