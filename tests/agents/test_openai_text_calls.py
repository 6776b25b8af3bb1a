"""Tool calls written as text, through the real OpenAI-compatible agent, its tool loop and
the fake server: markup hidden, the call run (through ``before_tool``), the result sent
back as text the model can read, the final answer shown."""

from __future__ import annotations

import json

import pytest

from agents.helpers import primary_request
from milk_tui.agents import base as ab
from milk_tui.agents.openai_compat import OpenAICompatAgent
from milk_tui.agents.tool_calls import BeforeTool
from milk_tui.agents.tool_loop import LoopSettings
from milk_tui.agents.tools import LocalToolBox, Tool
from milk_tui.config.settings import AgentConfig
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall

ARGS = {"city": "Paris"}
BLOCKS = {
    "tool_call_tag": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    "tools_tag": '<tools>{"name": "get_weather", "arguments": {"city": "Paris"}}</tools>',
    "fenced_json": '```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```',
    "bracket_tool_calls": '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]',
    "gemma_special": '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>',
    "tool_code": '```tool_code\nget_weather(city="Paris")\n```',
    "bare_json": '{"name": "get_weather", "arguments": {"city": "Paris"}}',
}  # fmt: skip


def pieces(s: str, n: int = 3) -> list[str]:
    """Stream ``s`` in ``n``-character chunks, splitting every delimiter."""
    return [s[i : i + n] for i in range(0, len(s), n)]


def weather_box(seen: list[dict]) -> LocalToolBox:
    async def get_weather(args: dict) -> ab.ToolOutcome:
        seen.append(args)
        return ab.ToolOutcome(f"sunny in {args['city']}")

    spec = ab.ToolSpec(
        "get_weather",
        "weather for a city",
        {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    )
    return LocalToolBox([Tool(spec, get_weather)])


def agent_for(srv: FakeOpenAIServer, before_tool: BeforeTool | None = None) -> OpenAICompatAgent:
    a = OpenAICompatAgent(AgentConfig(name="llama", provider="local", url=srv.url, model="m"))
    a.loop_settings = LoopSettings(before_tool=before_tool)  # the hook permissions use
    return a


async def run(agent: OpenAICompatAgent, tools: ab.ToolBox | None) -> list[ab.AgentEvent]:
    events = [e async for e in agent.stream(primary_request("weather?", tools=tools))]
    await agent.aclose()
    return events


def text_of(events: list[ab.AgentEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, ab.TextChunk))


@pytest.mark.parametrize("fmt", list(BLOCKS))
async def test_each_text_format_runs_like_a_native_call(
    fake_openai: FakeOpenAIServer, fmt: str
) -> None:
    lead = "" if fmt == "bare_json" else "Checking. "
    fake_openai.enqueue(
        FakeReply(text=pieces(lead + BLOCKS[fmt])), FakeReply(text=["It is ", "sunny."])
    )
    asked: list[str] = []

    async def before_tool(call: ab.ToolCallEvent) -> ab.ToolOutcome | None:
        asked.append(call.name)
        return None

    seen: list[dict] = []
    agent = agent_for(fake_openai, before_tool=before_tool)
    events = await run(agent, weather_box(seen))
    assert text_of(events) == lead + "It is sunny."  # the markup never shows
    calls = [e for e in events if isinstance(e, ab.ToolCallEvent)]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("get_weather", ARGS)]
    assert asked == ["get_weather"] and seen == [ARGS]
    results = [e for e in events if isinstance(e, ab.ToolResultEvent)]
    assert results[0].content == "sunny in Paris" and not results[0].is_error
    assert isinstance(events[-1], ab.Finished) and events[-1].stop_reason == "stop"
    # The model gets its own words back and the result as a user message it can read.
    msgs = fake_openai.chat_requests[1].json["messages"]
    assert msgs[-2] == {"role": "assistant", "content": lead + BLOCKS[fmt]}
    assert msgs[-1]["role"] == "user" and "sunny in Paris" in msgs[-1]["content"]
    assert agent.text_call_format == fmt


async def test_hermes_results_come_back_as_tool_response(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.enqueue(FakeReply(text=[BLOCKS["tool_call_tag"]]), FakeReply(text=["ok"]))
    await run(agent_for(fake_openai), weather_box([]))
    last = fake_openai.chat_requests[1].json["messages"][-1]
    assert last["content"] == (
        '<tool_response>\n{"name": "get_weather", "content": {"output": "sunny in Paris"}}'
        "\n</tool_response>"
    )


async def test_a_denied_text_call_reports_the_denial(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.enqueue(FakeReply(text=[BLOCKS["tool_call_tag"]]), FakeReply(text=["fine"]))

    async def deny(call: ab.ToolCallEvent) -> ab.ToolOutcome | None:
        return ab.ToolOutcome("tool get_weather was denied by user", is_error=True)

    seen: list[dict] = []
    events = await run(agent_for(fake_openai, before_tool=deny), weather_box(seen))
    assert seen == [] and text_of(events) == "fine"
    assert "denied" in fake_openai.chat_requests[1].json["messages"][-1]["content"]


@pytest.mark.parametrize(
    "text",
    [
        "<tool_call>{not json at all}</tool_call> done",
        '<tool_call>{"name": "launch_rockets", "arguments": {}}</tool_call>',
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}',
        "Use `dict[str, int]` and {braces}; a < b.\n```python\nprint({'a': 1})\n```\n",
        '```json\n{"city": "Paris", "temp": 21}\n```',
    ],
)
async def test_what_is_not_a_call_is_shown_as_written(
    fake_openai: FakeOpenAIServer, text: str
) -> None:
    fake_openai.enqueue(FakeReply(text=pieces(text, 4)))
    seen: list[dict] = []
    events = await run(agent_for(fake_openai), weather_box(seen))
    assert text_of(events) == text
    assert not any(isinstance(e, ab.ToolCallEvent) for e in events) and seen == []
    assert len(fake_openai.chat_requests) == 1


QUOTED = [
    f"Write it like `{BLOCKS['tool_call_tag']}` and I run it.",
    f"Inline: ``{BLOCKS['gemma_special']}`` and `{BLOCKS['tools_tag']}`.",
    f"A fence:\n```\n{BLOCKS['tool_call_tag']}\n```\nthat is all.",
    f"```python\n# {BLOCKS['bracket_tool_calls']}\n```",
    f"````markdown\n{BLOCKS['fenced_json']}\n````\ndone",
    f"````\n{BLOCKS['tool_code']}\n````",
    f"`{BLOCKS['bare_json']}`",
]


@pytest.mark.parametrize("text", QUOTED)
async def test_a_call_quoted_in_code_is_text_and_runs_nothing(
    fake_openai: FakeOpenAIServer, text: str
) -> None:
    fake_openai.enqueue(FakeReply(text=pieces(text, 3)))
    seen: list[dict] = []
    events = await run(agent_for(fake_openai), weather_box(seen))
    assert text_of(events) == text  # shown as written
    assert not any(isinstance(e, ab.ToolCallEvent) for e in events) and seen == []
    assert len(fake_openai.chat_requests) == 1  # no tool round


async def test_a_stray_backtick_hides_no_later_call(fake_openai: FakeOpenAIServer) -> None:
    # An inline span ends at a blank line: a lone backtick does not make the rest data.
    text = f"don't type ` here\n\n{BLOCKS['tool_call_tag']}"
    fake_openai.enqueue(FakeReply(text=pieces(text, 5)), FakeReply(text=["sunny"]))
    seen: list[dict] = []
    events = await run(agent_for(fake_openai), weather_box(seen))
    assert seen == [ARGS] and text_of(events) == "don't type ` here\n\nsunny"


async def test_without_tools_markup_is_plain_text(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.enqueue(FakeReply(text=pieces(BLOCKS["tool_call_tag"])))
    events = await run(agent_for(fake_openai), None)
    assert text_of(events) == BLOCKS["tool_call_tag"]


async def test_native_calls_keep_the_native_path(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.enqueue(
        FakeReply(tool_calls=[FakeToolCall("get_weather", json.dumps(ARGS))]),
        FakeReply(text=["sunny"]),
    )
    events = await run(agent_for(fake_openai), weather_box([]))
    assert text_of(events) == "sunny"
    msgs = fake_openai.chat_requests[1].json["messages"]
    assert msgs[-2]["tool_calls"] and msgs[-1]["role"] == "tool"


async def test_a_seen_format_is_preferred_next_turn(fake_openai: FakeOpenAIServer) -> None:
    agent = agent_for(fake_openai)
    fake_openai.enqueue(FakeReply(text=[BLOCKS["tool_call_tag"]]), FakeReply(text=["ok"]))
    await run(agent, weather_box([]))
    assert agent.text_call_format == "tool_call_tag"
    fake_openai.enqueue(FakeReply(text=pieces(BLOCKS["fenced_json"])))
    events = await run(agent, weather_box([]))
    assert text_of(events) == BLOCKS["fenced_json"]  # other formats are text now
