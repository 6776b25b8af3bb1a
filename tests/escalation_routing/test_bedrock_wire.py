"""Converse request shaping: the repairs Converse needs that OpenAI-shaped history breaks."""

from __future__ import annotations

from milk_tui.agents.base import ChatMessage, ToolSpec
from milk_tui.agents.bedrock_wire import (
    EMPTY_TEXT,
    OMITTED_HEAD,
    append_prompt,
    parse_arguments,
    split_system,
    to_converse_messages,
    tool_config,
)


def call(cid: str, name: str, args: str) -> dict:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}


def test_split_system_keeps_order_and_skips_blanks():
    system, rest = split_system(
        "ROLE",
        [
            ChatMessage("system", "A"),
            ChatMessage("user", "u"),
            ChatMessage("system", "  "),
            ChatMessage("system", "B"),
        ],
    )
    assert system == [{"text": "ROLE"}, {"text": "A"}, {"text": "B"}]
    assert [m.content for m in rest] == ["u"]
    assert split_system("", [])[0] == []


def test_consecutive_roles_merge_and_head_is_user():
    out = to_converse_messages(
        [
            ChatMessage("assistant", "earlier answer"),
            ChatMessage("user", "a"),
            ChatMessage("user", "b"),
            ChatMessage("assistant", "x"),
            ChatMessage("assistant", "y"),
        ],
        tools_enabled=False,
    )
    assert out == [
        {"role": "user", "content": [{"text": OMITTED_HEAD}]},
        {"role": "assistant", "content": [{"text": "earlier answer"}]},
        {"role": "user", "content": [{"text": "a"}, {"text": "b"}]},
        {"role": "assistant", "content": [{"text": "x"}, {"text": "y"}]},
    ]
    assert append_prompt(out, "now")[-1] == {"role": "user", "content": [{"text": "now"}]}
    assert append_prompt([], "  ") == [{"role": "user", "content": [{"text": EMPTY_TEXT}]}]


def test_paired_tool_traffic_stays_structured():
    out = to_converse_messages(
        [
            ChatMessage("user", "read it"),
            ChatMessage(
                "assistant",
                "",
                tool_calls=[
                    call("c1", "read_file", '{"path": "a"}'),
                    call("c2", "read_file", "not json"),
                ],
            ),
            ChatMessage("tool", "AAA", tool_call_id="c1"),
            ChatMessage("tool", "", tool_call_id="c2"),
        ],
        tools_enabled=True,
    )
    assert out[1] == {
        "role": "assistant",
        "content": [
            {"toolUse": {"toolUseId": "c1", "name": "read_file", "input": {"path": "a"}}},
            {"toolUse": {"toolUseId": "c2", "name": "read_file", "input": {}}},
        ],
    }
    # Consecutive tool results merge into ONE user message (Converse demands alternation).
    assert out[2] == {
        "role": "user",
        "content": [
            {"toolResult": {"toolUseId": "c1", "content": [{"text": "AAA"}]}},
            {"toolResult": {"toolUseId": "c2", "content": [{"text": EMPTY_TEXT}]}},
        ],
    }


def test_unpairable_tool_traffic_degrades_to_text():
    # Our stored history has tool results without ids and no recorded tool calls.
    out = to_converse_messages(
        [ChatMessage("user", "q"), ChatMessage("tool", "raw output")], tools_enabled=True
    )
    assert out == [
        {"role": "user", "content": [{"text": "q"}, {"text": "[tool result] raw output"}]}
    ]
    # A toolUse whose answer was trimmed away must not reach Converse as a toolUse.
    out = to_converse_messages(
        [
            ChatMessage("user", "q"),
            ChatMessage("assistant", "let me look", tool_calls=[call("c9", "grep", '{"p": 1}')]),
            ChatMessage("user", "never mind"),
        ],
        tools_enabled=True,
    )
    assert out[1]["content"] == [{"text": "let me look"}, {"text": '[tool call grep] {"p": 1}'}]
    # Without toolConfig, Converse rejects tool blocks altogether.
    out = to_converse_messages(
        [
            ChatMessage("user", "q"),
            ChatMessage("assistant", "", tool_calls=[call("c1", "ls", "{}")]),
            ChatMessage("tool", "x", tool_call_id="c1"),
        ],
        tools_enabled=False,
    )
    assert out[1]["content"] == [{"text": "[tool call ls] {}"}]
    assert out[2]["content"] == [{"text": "[tool result] x"}]


def test_tool_config_shapes():
    assert tool_config([]) is None
    tc = tool_config([ToolSpec("a", "", {}), ToolSpec("b", "does b", {"type": "object"})])
    assert tc == {
        "tools": [
            {
                "toolSpec": {
                    "name": "a",
                    "description": "a",
                    "inputSchema": {"json": {"type": "object", "properties": {}}},
                }
            },
            {
                "toolSpec": {
                    "name": "b",
                    "description": "does b",
                    "inputSchema": {"json": {"type": "object"}},
                }
            },
        ]
    }


def test_parse_arguments_always_gives_an_object():
    assert parse_arguments('{"a": 1}') == {"a": 1}
    assert (
        parse_arguments("") == {} and parse_arguments("[1]") == {} and parse_arguments("{bad") == {}
    )
