"""The agent against a REAL llama.cpp server (xllamacpp + a generated tiny GGUF).

The model is random: assert on structure (events, usage, errors), never on the text.
"""

from __future__ import annotations

import pytest

from agents.helpers import primary_request
from milk_tui.agents.base import AgentError, ChatMessage, Finished, TextChunk, UsageEvent
from milk_tui.agents.openai_compat import OpenAICompatAgent
from milk_tui.config.settings import AgentConfig
from milk_tui.testing.llama_server import LlamaServer

pytestmark = pytest.mark.real_peer


def llama_agent(srv: LlamaServer) -> OpenAICompatAgent:
    # max_tokens bounds the random model's reply; temperature 0 keeps runs comparable.
    return OpenAICompatAgent(
        AgentConfig(
            name="llama", provider="local", url=srv.url, model="tiny", max_tokens=24, temperature=0
        )
    )


async def test_streamed_turn_yields_text_usage_and_finish(llama_server: LlamaServer) -> None:
    agent = llama_agent(llama_server)
    assert await agent.available()
    req = primary_request(
        "hello",
        system_prompt="be brief",
        messages=[
            ChatMessage("user", "[user to llama] hi"),
            ChatMessage("assistant", "hello world"),
        ],
    )
    events = [e async for e in agent.stream(req)]
    await agent.aclose()
    texts = [e for e in events if isinstance(e, TextChunk)]
    usages = [e for e in events if isinstance(e, UsageEvent)]
    assert texts and all(t.text for t in texts)
    assert len(usages) == 1
    u = usages[0]
    assert u.model == "tiny" and u.completion_tokens >= 1
    assert u.prompt_tokens + u.cache_read > 0
    assert isinstance(events[-1], Finished) and events[-1].stop_reason in ("stop", "length")
    assert events.index(usages[0]) > events.index(texts[-1])


async def test_over_long_prompt_is_a_clear_error(llama_server: LlamaServer) -> None:
    agent = llama_agent(llama_server)
    long_prompt = "hello world " * (llama_server.n_ctx * 2)
    with pytest.raises(AgentError) as e:
        async for _ in agent.stream(primary_request(long_prompt)):
            pass
    await agent.aclose()
    msg = str(e.value)
    assert msg.startswith("agent 'llama': HTTP 400: ")
    assert "context" in msg and e.value.status == 400


async def test_next_turn_after_an_error_works(llama_server: LlamaServer) -> None:
    agent = llama_agent(llama_server)
    with pytest.raises(AgentError):
        async for _ in agent.stream(primary_request("x " * 5000)):
            pass
    events = [e async for e in agent.stream(primary_request("hi"))]
    await agent.aclose()
    assert isinstance(events[-1], Finished)
