"""Agent-as-tool end to end: a primary on one fake OpenAI server calls ``agent_<name>``,
whose target is a second fake OpenAI agent (and, where installed, a real llama.cpp
server); plus the config rules for ``agent_tools``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from milk_tui.config.agent_tools import entries_for, tool_name
from milk_tui.config.load import load_config
from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.facade.application import start
from milk_tui.model import events as ev
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall


@pytest.fixture
def two_servers() -> Iterator[tuple[FakeOpenAIServer, FakeOpenAIServer]]:
    with FakeOpenAIServer() as primary, FakeOpenAIServer() as helper:
        yield primary, helper


def _config(primary_url: str, helper_url: str, **entry: Any) -> MilkConfig:
    return MilkConfig(
        agent="cheap",
        escalation_agent="cheap",
        agents=[
            AgentConfig(name="cheap", provider="local", url=primary_url, model="small"),
            AgentConfig(name="Big Brain", provider="local", url=helper_url, model="large"),
        ],
        agent_tools=[{"agent": "Big Brain", "description": "Ask the big model.", **entry}],
    )


def _tool_result(srv: FakeOpenAIServer) -> dict[str, Any]:
    msgs = srv.chat_requests[-1].json["messages"]
    (tool,) = [m for m in msgs if m["role"] == "tool"]
    return json.loads(tool["content"])


async def test_the_primary_asks_another_agent_and_gets_its_answer(
    two_servers: tuple[FakeOpenAIServer, FakeOpenAIServer], tmp_path: Path
) -> None:
    primary, helper = two_servers
    call = FakeToolCall("agent_big_brain", json.dumps({"request": "What is 6 times 7?"}), id="c1")
    primary.enqueue(
        FakeReply(text=["Hello."]),  # an earlier exchange the helper must NOT see
        FakeReply(tool_calls=[call]),
        FakeReply(text=["The big model says 42."]),
    )
    helper.enqueue(FakeReply(text=["42"], usage={"prompt_tokens": 30, "completion_tokens": 2}))
    app = start(cwd=str(tmp_path), config=_config(primary.url, helper.url))
    events: list[Any] = []
    app.add_listener(events.append)
    try:
        assert (await app.run_turn("SECRET-EARLIER-PROMPT", force="primary")).ok
        out = await app.run_turn("Ask the big model", force="primary")
    finally:
        await app.aclose()
    assert out.ok and out.text == "The big model says 42."
    offered = [t["function"]["name"] for t in primary.chat_requests[1].json["tools"]]
    assert "agent_big_brain" in offered
    (asked,) = helper.chat_requests
    sent = asked.json["messages"]
    assert [m["role"] for m in sent] == ["system", "user"]
    assert sent[-1]["content"] == "What is 6 times 7?"
    assert "SECRET-EARLIER-PROMPT" not in json.dumps(sent)  # stateless: no session history
    assert "tools" not in asked.json  # a one-shot answer, no tools of its own
    assert _tool_result(primary) == {"output": "42"}
    usage = [e for e in events if isinstance(e, ev.Usage) and e.role == "primary:agent_big_brain"]
    assert [(u.model, u.prompt_tokens, u.completion_tokens) for u in usage] == [("large", 30, 2)]
    # booked on the turn, under the primary's totals
    tokens = app.runtime.dispatcher.session.tokens
    assert tokens[("large", "primary:agent_big_brain")].prompt == 30


async def test_a_failing_agent_is_an_error_result_and_the_turn_goes_on(
    two_servers: tuple[FakeOpenAIServer, FakeOpenAIServer], tmp_path: Path
) -> None:
    primary, helper = two_servers
    call = FakeToolCall("agent_big_brain", json.dumps({"request": "help"}), id="c1")
    primary.enqueue(FakeReply(tool_calls=[call]), FakeReply(text=["I will answer alone."]))
    helper.enqueue(FakeReply(status=500, error_body='{"error": {"message": "helper melted"}}'))
    app = start(cwd=str(tmp_path), config=_config(primary.url, helper.url))
    try:
        out = await app.run_turn("go", force="primary")
    finally:
        await app.aclose()
    assert out.ok and out.text == "I will answer alone."
    error = _tool_result(primary)["error"]
    assert error.startswith("Big Brain failed:") and "helper melted" in error


async def test_a_disabled_entry_offers_no_tool(
    two_servers: tuple[FakeOpenAIServer, FakeOpenAIServer], tmp_path: Path
) -> None:
    primary, helper = two_servers
    primary.enqueue(FakeReply(text=["ok"]))
    app = start(cwd=str(tmp_path), config=_config(primary.url, helper.url, enabled=False))
    try:
        assert (await app.run_turn("go", force="primary")).ok
    finally:
        await app.aclose()
    offered = [t["function"]["name"] for t in primary.chat_requests[0].json["tools"]]
    assert not any(n.startswith("agent_") for n in offered)


def test_tool_names_are_sanitised() -> None:
    assert tool_name("Big Brain") == "agent_big_brain"
    assert tool_name("claude-opus@4.5") == "agent_claude_opus_4_5"
    assert len(tool_name("x" * 100)) == 64


def test_per_agent_entries_replace_global_ones_and_add_new() -> None:
    cfg = MilkConfig(
        agents=[
            {
                "name": "cheap",
                "url": "http://h",
                "tools": [
                    {"agent": "big", "description": "mine"},
                    {"agent": "other"},
                    {"agent": "cheap"},  # never itself
                ],
            },
            {"name": "big", "url": "http://h"},
            {"name": "other", "url": "http://h"},
            {"name": "off", "url": "http://h"},
        ],
        agent_tools=[{"agent": "BIG", "description": "global"}, {"agent": "off", "enabled": False}],
    )
    got = entries_for(cfg, cfg.find_agent("cheap"))
    assert [(e.agent, e.description) for e in got] == [("big", "mine"), ("other", "")]


def _write(tmp_path: Path, data: dict[str, Any]) -> Path:
    p = tmp_path / "config.json"
    p.write_text(json.dumps(data))
    return p


def test_claude_as_a_tool_without_skipped_permissions_is_one_line_and_left_out(
    tmp_path: Path,
) -> None:
    p = _write(
        tmp_path,
        {
            "agents": [
                {"name": "local", "url": "http://h"},
                {"name": "claude", "provider": "claude-cli"},
            ],
            "agent_tools": [{"agent": "claude"}],
        },
    )
    cfg, warnings, _ = load_config(p)
    [message] = [w for w in warnings if "agent_tools" in w]
    assert message.startswith(str(p)) and "agent_tools entry 'claude'" in message
    assert "dangerously_skip_permissions" in message and message.endswith("left out")
    assert cfg.agent_tools == []


def test_claude_as_a_tool_with_skipped_permissions_loads(tmp_path: Path) -> None:
    p = _write(
        tmp_path,
        {
            "agents": [
                {"name": "local", "url": "http://h"},
                {"name": "claude", "provider": "claude-cli", "dangerously_skip_permissions": True},
            ],
            "agent_tools": [{"agent": "claude", "description": "the strong one"}],
        },
    )
    cfg, warnings, _ = load_config(p)
    assert [e.agent for e in cfg.agent_tools] == ["claude"]
    assert not any("agent_tools" in w for w in warnings)  # no longer "not supported"


def test_an_unknown_agent_is_a_warning(tmp_path: Path) -> None:
    p = _write(
        tmp_path,
        {"agents": [{"name": "local", "url": "http://h"}], "agent_tools": [{"agent": "ghost"}]},
    )
    _, warnings, _ = load_config(p)
    assert warnings == ["agent_tools: agent 'ghost' is not defined in agents[]; ignored"]
