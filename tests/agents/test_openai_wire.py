"""Chat-completions request shapes (pure): messages, tools, the tool round, error bodies."""

from __future__ import annotations

import json

from agents.helpers import primary_request
from milk_tui.agents.base import ChatMessage, ToolOutcome, ToolSpec
from milk_tui.agents.openai_wire import (
    assistant_turn,
    backend_message,
    initial_messages,
    request_body,
    tool_result_messages,
    wire_tools,
)
from milk_tui.agents.round_backend import RoundResult, ToolCall, ToolRun


def test_initial_messages_system_history_prompt() -> None:
    req = primary_request(
        "now",
        system_prompt="be brief",
        messages=[
            ChatMessage("user", "before"),
            ChatMessage("assistant", "", tool_calls=[{"id": "t1"}]),
            ChatMessage("tool", "out", tool_call_id="t1", name="read_file"),
        ],
    )
    assert initial_messages(req) == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "before"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "t1"}]},
        {"role": "tool", "content": "out", "tool_call_id": "t1", "name": "read_file"},
        {"role": "user", "content": "now"},
    ]


def test_request_body_carries_tools_and_extra_keys_only_when_set() -> None:
    plain = json.loads(request_body("m", [], [], {}))
    assert plain == {
        "model": "m",
        "messages": [],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    tools = wire_tools([ToolSpec("ls", "list", {"type": "object"})])
    full = json.loads(request_body("m", [], tools, {"temperature": 0.2}))
    assert full["tools"] == [
        {
            "type": "function",
            "function": {"name": "ls", "description": "list", "parameters": {"type": "object"}},
        }
    ]
    assert full["temperature"] == 0.2


def test_tool_round_echo_keeps_history_parseable() -> None:
    result = RoundResult(
        tool_calls=[ToolCall("a", "ls", '{"path": "."}'), ToolCall("b", "cat", '{"path"')]
    )
    turn = assistant_turn(result)
    assert turn["content"] is None
    assert [c["function"]["arguments"] for c in turn["tool_calls"]] == ['{"path": "."}', "{}"]
    runs = [
        ToolRun(result.tool_calls[0], ToolOutcome("x")),
        ToolRun(result.tool_calls[1], ToolOutcome("bad json", is_error=True)),
    ]
    assert tool_result_messages(runs) == [
        {"role": "tool", "tool_call_id": "a", "content": '{"output": "x"}'},
        {"role": "tool", "tool_call_id": "b", "content": '{"error": "bad json"}'},
    ]


def test_backend_message_prefers_the_error_message() -> None:
    assert backend_message(b'{"error": {"message": "kv cache full"}}') == "kv cache full"
    assert backend_message(b'{"detail": "nope"}') == "nope"
    assert backend_message(b'{"error": "plain"}') == "plain"
    assert backend_message(b"") == "(empty body)"
    assert backend_message(b"<html>" + b"x" * 400) == "<html>" + "x" * 294 + "…"
