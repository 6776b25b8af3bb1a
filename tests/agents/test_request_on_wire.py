"""``AgentRequest.on_wire``: each agent says once, per turn, when its request is on its way —
the moment the TUI paints the turn's start after (docs/adr/0045-the-request-before-the-repaint.md).
Real httpx against the fake servers, real boto3 against the fake Bedrock, the real Claude CLI."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agents.helpers import primary_request
from milk_tui.agents import base as ab
from milk_tui.agents.bedrock import BedrockAgent
from milk_tui.agents.claude_cli import ClaudeCliAgent
from milk_tui.agents.openai_compat import OpenAICompatAgent
from milk_tui.agents.openai_responses import OpenAIResponsesAgent
from milk_tui.agents.tools import LocalToolBox, Tool
from milk_tui.config.settings import AgentConfig
from milk_tui.testing.fake_anthropic import FakeAnthropic, Reply
from milk_tui.testing.fake_bedrock import FakeBedrock, agent_config
from milk_tui.testing.fake_bedrock_reply import Reply as BedrockReply
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall
from milk_tui.testing.fake_openai_responses import FakeResponsesServer, ResponsesReply
from milk_tui.testing.waits import until


class Sent:
    """Counts ``on_wire`` calls, and what the agent had yielded at each."""

    def __init__(self) -> None:
        self.calls: list[int] = []
        self.events: list[ab.AgentEvent] = []

    def __call__(self) -> None:
        self.calls.append(len(self.events))

    async def run(self, agent: ab.Agent, request: ab.AgentRequest) -> None:
        request.on_wire = self
        async for e in agent.stream(request):
            self.events.append(e)


def _openai(srv: FakeOpenAIServer) -> OpenAICompatAgent:
    return OpenAICompatAgent(AgentConfig(name="llama", url=srv.url, model="qwen"))


async def test_the_body_written_is_enough_no_answer_needed(fake_openai: FakeOpenAIServer) -> None:
    """A server that never answers: the request is still on its way once written."""
    fake_openai.enqueue(FakeReply(text=["never"], hang="before_headers"))
    agent, sent = _openai(fake_openai), Sent()
    task = asyncio.create_task(sent.run(agent, primary_request("hi")))
    try:
        await until(None, lambda: sent.calls, what="on_wire called")
        assert sent.calls == [0] and fake_openai.chat_requests  # before any event
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await agent.aclose()


async def test_once_per_turn_across_tool_rounds(fake_openai: FakeOpenAIServer) -> None:
    async def now(_args: dict[str, object]) -> ab.ToolOutcome:
        return ab.ToolOutcome("noon")

    fake_openai.enqueue(FakeReply(tool_calls=[FakeToolCall("now", "{}", id="c1")]))
    fake_openai.enqueue(FakeReply(text=["it is ", "noon"]))
    tools = LocalToolBox([Tool(ab.ToolSpec("now", "the time", {"type": "object"}), now)])
    agent, sent = _openai(fake_openai), Sent()
    await sent.run(agent, primary_request("time?", tools=tools))
    await agent.aclose()
    assert len(fake_openai.chat_requests) == 2  # two rounds
    assert sent.calls == [0]


async def test_the_responses_agent_says_it_too(tmp_path: Path) -> None:
    with FakeResponsesServer() as srv:
        srv.enqueue(ResponsesReply(text=["ok"]))
        agent = OpenAIResponsesAgent(AgentConfig(name="gpt", url=srv.url, model="m"))
        sent = Sent()
        await sent.run(agent, primary_request("hi"))
        await agent.aclose()
    assert sent.calls == [0]


async def test_bedrock_says_it_as_its_call_starts(
    fake_bedrock: FakeBedrock, tmp_path: Path
) -> None:
    fake_bedrock.script(BedrockReply().text("ok"))
    agent, sent = BedrockAgent(agent_config(fake_bedrock)), Sent()
    await sent.run(agent, ab.AgentRequest(slot="primary", prompt="hi", cwd=str(tmp_path)))
    await agent.aclose()
    assert sent.calls == [0]


@pytest.mark.real_peer
async def test_the_claude_cli_once_its_prompt_is_written(
    claude_bin: str,
    real_claude_env: dict[str, str],
    fake_anthropic: FakeAnthropic,
    tmp_path: Path,
) -> None:
    fake_anthropic.push(Reply.text("hi there"))
    agent = ClaudeCliAgent(
        AgentConfig(name="claude", provider="claude-cli", bin=claude_bin), env=real_claude_env
    )
    sent = Sent()
    await sent.run(agent, ab.AgentRequest(slot="escalation", prompt="say hi", cwd=str(tmp_path)))
    assert sent.calls == [0]
    assert "hi there" in "".join(e.text for e in sent.events if isinstance(e, ab.TextChunk))
