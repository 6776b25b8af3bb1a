"""/drop at the engine and store level: the last exchange leaves the live session and the
database in one step; a hand-off's two halves go together; nothing else is touched."""

from __future__ import annotations

import pytest

from milk_tui.agents.base import TextChunk
from milk_tui.engine.turn_drop import drop_last_exchange, last_exchange_start
from milk_tui.facade.transcript import SessionTranscript
from milk_tui.model.session import State, Turn
from milk_tui.storage.db import StorageError
from milk_tui.testing.scripted_agent import Hold, say


async def test_drop_forgets_the_last_exchange_in_session_and_store(rig):
    await rig.dispatcher.run_turn("first question", force="primary")
    await rig.dispatcher.run_turn("second question", force="primary")
    tokens_before = dict(rig.session.tokens)
    dropped = drop_last_exchange(rig.dispatcher.state)
    assert dropped is not None and dropped.prompt == "second question" and dropped.records == 2
    assert [t.content for t in rig.session.history] == ["first question", "echo: first question"]
    stored = rig.reload()
    assert [t.content for t in stored.history] == ["first question", "echo: first question"]
    assert stored.tokens == tokens_before  # what was spent stays spent
    # the session goes on: the next turn is recorded after the remaining one
    await rig.dispatcher.run_turn("third", force="primary")
    assert [t.content for t in rig.reload().history][-2:] == ["third", "echo: third"]


async def test_a_hand_off_is_dropped_whole_and_the_next_escalation_is_fresh(rig):
    await rig.dispatcher.run_turn("warm up", force="primary")
    rig.primary.push(say("over to you", escalation_reason="too hard"))
    rig.escalation.push(say("Which file?"))
    await rig.dispatcher.run_turn("fix the build")
    assert rig.session.state == State.ESCALATION_WAITING
    nonce = rig.session.escalation_nonce
    dropped = drop_last_exchange(rig.dispatcher.state)
    assert dropped is not None and dropped.records == 4 and dropped.escalation_reset
    assert [t.content for t in rig.reload().history] == ["warm up", "echo: warm up"]
    s = rig.reload()
    assert rig.session.force_fresh_escalation and s.escalation_nonce != nonce
    assert s.state == State.ROUTING  # no longer waiting for an answer to a dropped question


async def test_nothing_to_drop(rig):
    assert drop_last_exchange(rig.dispatcher.state) is None
    assert SessionTranscript(rig.dispatcher).last_prompt() is None


async def test_another_process_appended_refuses_and_keeps_the_session(rig, store):
    await rig.dispatcher.run_turn("one", force="primary")
    other = store.load(rig.session.id)
    other.history.append(Turn("user", "from elsewhere", agent="primary"))
    store.commit_turns(other, other.history[-1:])
    with pytest.raises(StorageError, match="another process"):
        drop_last_exchange(rig.dispatcher.state)
    assert [t.content for t in rig.session.history] == ["one", "echo: one"]
    assert len(store.load(rig.session.id).history) == 3


async def test_drop_is_refused_while_a_turn_runs(rig):
    hold = Hold()
    rig.primary.push([TextChunk("a"), hold, *say("b", "c", "d")])
    task = rig.dispatcher.submit("slow", force="primary")
    await hold.reached.wait()  # the turn is running, and stays so until released
    with pytest.raises(ValueError, match="turn is running"):
        SessionTranscript(rig.dispatcher).drop_last()
    hold.release()
    assert (await task).ok


def test_last_exchange_start_with_tool_results_and_no_user_turn():
    h = [
        Turn("user", "q", agent="primary"),
        Turn("assistant", "", agent="primary"),
        Turn("tool_result", "out", agent="primary"),
        Turn("assistant", "done", agent="primary"),
    ]
    assert last_exchange_start(h) == 0
    assert last_exchange_start([Turn("assistant", "orphan")]) == -1
    # the same prompt to escalation with no primary half before it is its own exchange
    h2 = [Turn("user", "q", agent="escalation"), Turn("user", "q", agent="escalation")]
    assert last_exchange_start(h2) == 1
