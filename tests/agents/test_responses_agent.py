"""An ``api_format = "responses"`` agent against the fake Responses API server (real
sockets): what it sends, text, reasoning, a tool round with real built-in tools and the
permission check, usage with cached tokens, and how it is built from a config entry."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.helpers import primary_request
from milk_tui.agents import base as ab
from milk_tui.agents.factory import build_agent
from milk_tui.agents.openai_compat import OpenAICompatAgent
from milk_tui.agents.openai_responses import OpenAIResponsesAgent, responses_path
from milk_tui.agents.tools import BuiltinToolBox, CompositeToolBox
from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.engine.router_classifier import make_agent_classifier
from milk_tui.testing.fake_openai_responses import (
    FakeResponsesServer,
    FakeToolCall,
    ResponsesReply,
    responses_usage,
)


@pytest.fixture
def fake() -> Iterator[FakeResponsesServer]:
    with FakeResponsesServer() as srv:
        yield srv


def agent_for(srv: FakeResponsesServer, **kw: object) -> OpenAIResponsesAgent:
    return OpenAIResponsesAgent(
        AgentConfig(name="resp", url=srv.url, model="gpt-test", api_format="responses", **kw)
    )


async def run(agent: OpenAIResponsesAgent, request: ab.AgentRequest) -> list[ab.AgentEvent]:
    try:
        return [e async for e in agent.stream(request)]
    finally:
        await agent.aclose()


def text_of(events: list[ab.AgentEvent], kind: type = ab.TextChunk) -> str:
    return "".join(e.text for e in events if isinstance(e, kind))  # type: ignore[attr-defined]


async def test_plain_text_and_the_request_it_sent(fake: FakeResponsesServer) -> None:
    fake.enqueue(ResponsesReply(text=["Hel", "lo", " there"], usage=responses_usage(30, 3)))
    request = primary_request(
        "and now?",
        system_prompt="You are terse.",
        messages=[
            ab.ChatMessage("system", "[pinned need] ship it"),
            ab.ChatMessage("user", "first question"),
            ab.ChatMessage("assistant", "first answer"),
            ab.ChatMessage("tool", "a stored tool result"),
        ],
    )
    agent = agent_for(fake, temperature=0.2, top_p=0.9, max_tokens=64, seed=3, stop=["x"])
    events = await run(agent, request)
    assert text_of(events) == "Hello there"
    assert isinstance(events[-1], ab.Finished) and events[-1].stop_reason == "stop"
    sent = fake.chat_requests[-1]
    assert sent.path == "/v1/responses"
    assert sent.headers["accept"] == "text/event-stream"
    assert sent.json == {
        "model": "gpt-test",
        "input": [
            {"type": "message", "role": "system", "content": "You are terse."},
            {"type": "message", "role": "system", "content": "[pinned need] ship it"},
            {"type": "message", "role": "user", "content": "first question"},
            {"type": "message", "role": "assistant", "content": "first answer"},
            {"type": "message", "role": "system", "content": "[tool result] a stored tool result"},
            {"type": "message", "role": "user", "content": "and now?"},
        ],
        "stream": True,
        "store": False,
        "temperature": 0.2,
        "top_p": 0.9,
        "max_output_tokens": 64,
    }


async def test_reasoning_summary_and_reasoning_config(fake: FakeResponsesServer) -> None:
    fake.enqueue(ResponsesReply(reasoning=["Let me ", "think."], text=["42"]))
    agent = agent_for(fake, reasoning={"effort": "low", "summary": "auto"})
    events = await run(agent, primary_request("?"))
    assert text_of(events, ab.ThinkingChunk) == "Let me think."
    assert text_of(events) == "42"
    # Thinking arrives before the answer, as the model wrote it.
    kinds = [type(e) for e in events if isinstance(e, ab.TextChunk | ab.ThinkingChunk)]
    assert kinds.index(ab.TextChunk) > kinds.index(ab.ThinkingChunk)
    assert fake.chat_requests[-1].json["reasoning"] == {"effort": "low", "summary": "auto"}


async def test_reasoning_text_only_becomes_the_answer(fake: FakeResponsesServer) -> None:
    """An open-weight model's raw reasoning (``reasoning_text``) with no answer text: the
    tool loop promotes it, as on the chat path."""
    fake.enqueue(ResponsesReply(reasoning=["just ", "this"], reasoning_kind="text"))
    events = await run(agent_for(fake), primary_request("?"))
    assert text_of(events, ab.ThinkingChunk) == "just this"
    assert text_of(events) == "just this"
    assert events[-1] == ab.Finished(stop_reason="stop", reasoning_promoted=True)


async def test_usage_with_cached_tokens(fake: FakeResponsesServer) -> None:
    fake.enqueue(ResponsesReply(text=["ok"], usage=responses_usage(619, 12, cached=576)))
    events = await run(agent_for(fake), primary_request("?"))
    usage = [e for e in events if isinstance(e, ab.UsageEvent)]
    assert usage == [
        ab.UsageEvent("gpt-test", prompt_tokens=43, completion_tokens=12, cache_read=576)
    ]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "notes.txt").write_text("the launch code is blue\n")
    return root


def tools(root: Path) -> CompositeToolBox:
    return CompositeToolBox(
        [BuiltinToolBox(root, on_need=lambda g: None, on_record_memory=None, allow_escalate=False)]
    )


async def test_tool_round_trip_reads_a_real_file(fake: FakeResponsesServer, project: Path) -> None:
    fake.enqueue(
        ResponsesReply(
            text=["Let me look."],
            tool_calls=[FakeToolCall("read_file", '{"path": "notes.txt"}', id="call_r1")],
            usage=responses_usage(100, 10),
        ),
        ResponsesReply(text=["It says blue."], usage=responses_usage(150, 5, cached=100)),
    )
    request = ab.AgentRequest(
        slot="primary", prompt="what is in notes.txt?", cwd=str(project), tools=tools(project)
    )
    events = await run(agent_for(fake), request)
    calls = [e for e in events if isinstance(e, ab.ToolCallEvent)]
    assert calls == [ab.ToolCallEvent("call_r1", "read_file", '{"path": "notes.txt"}')]
    results = [e for e in events if isinstance(e, ab.ToolResultEvent)]
    assert len(results) == 1 and "the launch code is blue" in results[0].content
    assert text_of(events) == "Let me look.It says blue."
    # The tools went out as flat function tools; the second round carries the call and
    # its output as items after the model's own text.
    first, second = (r.json for r in fake.chat_requests)
    read_tool = next(t for t in first["tools"] if t["name"] == "read_file")
    assert read_tool["type"] == "function" and "path" in read_tool["parameters"]["properties"]
    assert second["input"][-3:-1] == [
        {"type": "message", "role": "assistant", "content": "Let me look."},
        {
            "type": "function_call",
            "call_id": "call_r1",
            "name": "read_file",
            "arguments": '{"path": "notes.txt"}',
        },
    ]
    output = second["input"][-1]
    assert output["type"] == "function_call_output" and output["call_id"] == "call_r1"
    assert "the launch code is blue" in json.loads(output["output"])["output"]
    usage = [e for e in events if isinstance(e, ab.UsageEvent)]
    assert [(u.prompt_tokens, u.cache_read) for u in usage] == [(100, 0), (50, 100)]


@pytest.mark.parametrize("allow", [True, False])
async def test_a_write_goes_through_the_permission_check(
    fake: FakeResponsesServer, project: Path, allow: bool
) -> None:
    fake.enqueue(
        ResponsesReply(
            tool_calls=[
                FakeToolCall("write_file", '{"path": "out.txt", "content": "written"}', id="w1")
            ]
        ),
        ResponsesReply(text=["done"]),
    )
    asked: list[ab.PermissionQuestion] = []

    async def ask(q: ab.PermissionQuestion) -> ab.PermissionAnswer:
        asked.append(q)
        return ab.PermissionAnswer(allow=allow, reason="" if allow else "not today")

    request = ab.AgentRequest(
        slot="primary",
        prompt="write it",
        cwd=str(project),
        tools=tools(project),
        ask_permission=ask,
    )
    events = await run(agent_for(fake), request)
    assert [(q.agent_name, q.tool_name, q.effect) for q in asked] == [
        ("resp", "write_file", "write")
    ]
    assert (project / "out.txt").exists() is allow
    result = next(e for e in events if isinstance(e, ab.ToolResultEvent))
    assert result.is_error is not allow
    output = json.loads(fake.chat_requests[-1].json["input"][-1]["output"])
    if allow:
        assert (project / "out.txt").read_text() == "written"
    else:
        assert output == {"error": "permission denied: not today"}


async def test_unparseable_arguments_are_echoed_as_an_empty_object(
    fake: FakeResponsesServer, project: Path
) -> None:
    fake.enqueue(
        ResponsesReply(tool_calls=[FakeToolCall("read_file", '{"path": ', id="bad")]),
        ResponsesReply(text=["sorry"]),
    )
    request = ab.AgentRequest(slot="primary", prompt="x", cwd=str(project), tools=tools(project))
    events = await run(agent_for(fake), request)
    assert next(e for e in events if isinstance(e, ab.ToolResultEvent)).is_error
    call = fake.chat_requests[-1].json["input"][-2]
    assert call["type"] == "function_call" and call["arguments"] == "{}"


def test_the_path_follows_chat_path_only_when_it_is_set_to_something_else() -> None:
    def path(**kw: object) -> str:
        return responses_path(AgentConfig(name="a", url="http://h", api_format="responses", **kw))

    assert path() == "/v1/responses"
    assert path(chat_path="/v1/chat/completions") == "/v1/responses"  # the chat default
    assert path(chat_path="") == "/v1/responses"
    assert path(chat_path="openai/v1/responses") == "/openai/v1/responses"


async def test_a_custom_path_and_bearer_auth(fake: FakeResponsesServer) -> None:
    fake.chat_path = "/openai/v1/responses"
    fake.enqueue(ResponsesReply(text=["ok"]))
    agent = agent_for(
        fake, provider="openai", api_key="sk-resp-123", chat_path="/openai/v1/responses"
    )
    assert text_of(await run(agent, primary_request("?"))) == "ok"
    assert fake.chat_requests[-1].headers["authorization"] == "Bearer sk-resp-123"


def test_the_factory_builds_by_api_format() -> None:
    def built(fmt: str) -> object:
        ac = AgentConfig(name="a", url="http://127.0.0.1:9", api_format=fmt)
        return build_agent(ac, slot="primary", config=MilkConfig(agents=[ac]))

    assert type(built("responses")) is OpenAIResponsesAgent
    assert type(built("chat_completions")) is OpenAICompatAgent
    assert type(built("")) is OpenAICompatAgent
    assert type(built(" Responses ")) is OpenAIResponsesAgent  # trimmed, any case


def test_an_unknown_api_format_is_refused() -> None:
    with pytest.raises(ValueError, match='expected "chat_completions" or "responses"'):
        AgentConfig(name="a", api_format="completions")


async def test_the_router_classifier_and_the_probe_work(fake: FakeResponsesServer) -> None:
    fake.enqueue(ResponsesReply(text=["ESCALATE"]))
    agent = agent_for(fake)
    try:
        await agent.preconnect()
        assert await agent.available()
        assert await make_agent_classifier(agent)("is this hard?") == "ESCALATE"
    finally:
        await agent.aclose()
    sent = fake.chat_requests[-1].json
    assert "tools" not in sent and sent["input"][-1]["content"] == "is this hard?"


async def test_calls_written_as_text_run_and_are_answered_as_text(
    fake: FakeResponsesServer, project: Path
) -> None:
    """A local model behind /v1/responses that writes its call as markup: the same text-call
    detection as the chat path, the results going back as one user message."""
    markup = '<tool_call>{"name": "read_file", "arguments": {"path": "notes.txt"}}</tool_call>'
    fake.enqueue(ResponsesReply(text=[markup[:20], markup[20:]]), ResponsesReply(text=["blue"]))
    request = ab.AgentRequest(slot="primary", prompt="x", cwd=str(project), tools=tools(project))
    events = await run(agent_for(fake), request)
    assert text_of(events) == "blue"  # the markup never shows
    assert [e.name for e in events if isinstance(e, ab.ToolCallEvent)] == ["read_file"]
    sent = fake.chat_requests[-1].json["input"]
    assert sent[-2] == {"type": "message", "role": "assistant", "content": markup}
    assert sent[-1]["role"] == "user" and "<tool_response>" in sent[-1]["content"]
    assert "the launch code is blue" in sent[-1]["content"]
