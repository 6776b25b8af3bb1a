"""Any fault while an agent streams is one failed turn, never an exception out of the
dispatcher: the session is rolled back (a need the failed reply stated is not kept for the
next turn), nothing is recorded, and ``TurnFailed`` names the agent."""

from __future__ import annotations

from milk_tui.agents.base import Finished, TextChunk, ToolCallEvent
from milk_tui.testing.scripted_agent import say

NONCE = "pnonce77"


async def test_an_unexpected_exception_in_a_stream_is_one_failed_turn(rig) -> None:
    rig.session.primary_nonce = NONCE
    need = f"<milk:need:{NONCE}>port the lexer</milk:need:{NONCE}>"
    rig.primary.push([TextChunk("On it. " + need), TypeError("unsupported operand")])
    out = await rig.dispatcher.run_turn("port the lexer to rust", force="primary")
    assert not out.ok
    assert out.error == "agent 'llama': stream failed: TypeError: unsupported operand"
    [failed] = rig.of("turn_failed")
    assert failed.agent_name == "llama" and failed.error == out.error
    assert rig.session.current_need != "port the lexer" and rig.reload().history == []

    rig.primary.push(say("Hello."))
    assert (await rig.dispatcher.run_turn("just say hello", force="primary")).ok
    stored = rig.reload()
    assert [t.role for t in stored.history] == ["user", "assistant"]
    assert stored.current_need != "port the lexer"


async def test_a_reply_of_only_tool_calls_is_not_an_empty_reply(rig) -> None:
    """A CLI agent that worked with tools and wrote no summary still did something."""
    rig.primary.push([ToolCallEvent("c1", "read_file", "{}"), Finished()])
    out = await rig.dispatcher.run_turn("look at the file", force="primary")
    assert out.ok and [t.role for t in rig.reload().history][:1] == ["user"]
