"""Backend faults through the real OpenAI-compatible agent and the real dispatcher.

Each fault must end in one clear ``turn_failed``, record no user turn, leave a session that
still loads, and let the next turn work.
"""

from __future__ import annotations

import pytest

from milk_tui.agents.openai_compat import OpenAICompatAgent
from milk_tui.config.settings import AgentConfig
from milk_tui.engine.dispatch import AgentSlot
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall

PROMPT = "tell me about the retry policy of the uploader"


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        yield srv


@pytest.fixture
def http_rig(rig, server):
    ac = AgentConfig(name="llama", provider="local", url=server.url, model="m", timeout_secs=1.5)
    rig.dispatcher.primary = AgentSlot("primary", ac, OpenAICompatAgent(ac, max_tool_iterations=3))
    return rig


FAULTS = {
    "http_500": (FakeReply(status=500, error_body='{"error":{"message":"kv cache full"}}'), "500"),
    "cut_mid_stream": (FakeReply(text=["a", "b", "c", "d"], cut_after=2), "ended"),
    "malformed_sse": (FakeReply(text=["a", "b", "c"], malformed_after=1), "llama"),
    "never_answers": (FakeReply(hang="after_headers"), "timeout"),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
async def test_fault_fails_cleanly_then_next_turn_works(http_rig, server, fault):
    reply, needle = FAULTS[fault]
    server.enqueue(reply)
    out = await http_rig.dispatcher.run_turn(PROMPT, force="primary")
    assert not out.ok
    failed = http_rig.of("turn_failed")
    assert len(failed) == 1 and needle.lower() in failed[0].error.lower(), failed[0].error
    assert "llama" in failed[0].error
    assert http_rig.reload().history == []
    server.enqueue(FakeReply(text=["fine"]))
    out = await http_rig.dispatcher.run_turn(PROMPT, force="primary")
    assert out.ok and out.text == "fine"
    assert [t.role for t in http_rig.reload().history] == ["user", "assistant"]


async def test_invalid_tool_arguments_are_fed_back_not_fatal(http_rig, server):
    server.enqueue(
        FakeReply(tool_calls=[FakeToolCall(name="read_file", arguments='{"path": "a.txt"')]),
        FakeReply(text=["recovered"]),
    )
    out = await http_rig.dispatcher.run_turn(PROMPT, force="primary")
    assert out.ok and out.text == "recovered"
    results = http_rig.of("tool_result")
    assert results and results[0].is_error
    sent = server.chat_requests[-1].json["messages"]
    assert any(m["role"] == "tool" for m in sent)


async def test_unreachable_server_names_the_agent(rig):
    ac = AgentConfig(name="llama", provider="local", url="http://127.0.0.1:9", model="m")
    rig.dispatcher.primary = AgentSlot("primary", ac, OpenAICompatAgent(ac))
    out = await rig.dispatcher.run_turn(PROMPT, force="primary")
    assert not out.ok and "llama" in out.error and rig.reload().history == []
