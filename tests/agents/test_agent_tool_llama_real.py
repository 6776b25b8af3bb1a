"""Agent-as-tool with a REAL llama.cpp server as the target: the primary (fake OpenAI)
calls ``agent_llama``; the random tiny model's answer comes back as the tool result and
its tokens are booked on the turn.  Assert on structure, never on the text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.facade.application import start
from milk_tui.model import events as ev
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall
from milk_tui.testing.llama_server import LlamaServer

pytestmark = pytest.mark.real_peer


async def test_primary_asks_a_real_llama_agent(llama_server: LlamaServer, tmp_path: Path) -> None:
    with FakeOpenAIServer() as primary:
        call = FakeToolCall("agent_llama", json.dumps({"request": "Say hello."}), id="c1")
        primary.enqueue(FakeReply(tool_calls=[call]), FakeReply(text=["relayed"]))
        cfg = MilkConfig(
            agent="cheap",
            escalation_agent="cheap",
            agents=[
                AgentConfig(name="cheap", provider="local", url=primary.url, model="m"),
                AgentConfig(
                    name="llama",
                    provider="local",
                    url=llama_server.url,
                    model="tiny",
                    max_tokens=16,
                    temperature=0,
                ),
            ],
            agent_tools=[{"agent": "llama"}],
        )
        app = start(cwd=str(tmp_path), config=cfg)
        events: list[object] = []
        app.add_listener(events.append)
        try:
            out = await app.run_turn("ask llama", force="primary")
        finally:
            await app.aclose()
        assert out.ok and out.text == "relayed"
        msgs = primary.chat_requests[-1].json["messages"]
        (tool,) = [m for m in msgs if m["role"] == "tool"]
        body = json.loads(tool["content"])
        assert "error" not in body and body["output"].strip()
    (usage,) = [e for e in events if isinstance(e, ev.Usage) and e.role == "primary:agent_llama"]
    assert usage.model == "tiny" and usage.completion_tokens >= 1
