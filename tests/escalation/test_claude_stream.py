"""Line-level normalisation of the CLI's stream-json (fast layer; shapes from the real CLI)."""

from __future__ import annotations

import json

from milk_tui.agents.base import (
    TextChunk,
    ThinkingChunk,
    ToolCallEvent,
    ToolResultEvent,
    UsageEvent,
)
from milk_tui.agents.claude_stream import StreamJsonParser


def _se(event: dict, parent: str | None = None) -> str:
    return json.dumps(
        {"type": "stream_event", "event": event, "session_id": "S", "parent_tool_use_id": parent}
    )


def _delta(index: int, delta: dict, parent: str | None = None) -> str:
    return _se({"type": "content_block_delta", "index": index, "delta": delta}, parent)


def _text_delta(index: int, text: str, parent: str | None = None) -> str:
    return _delta(index, {"type": "text_delta", "text": text}, parent)


def _thinking_delta(index: int, thinking: str) -> str:
    return _delta(index, {"type": "thinking_delta", "thinking": thinking})


def _json_delta(index: int, partial_json: str) -> str:
    return _delta(index, {"type": "input_json_delta", "partial_json": partial_json})


def _message_start(message_id: str) -> str:
    return _se({"type": "message_start", "message": {"id": message_id}})


def _assistant(message_id: str, *content: dict, parent: str = "", **message: object) -> str:
    line: dict = {"type": "assistant"}
    if parent:
        line["parent_tool_use_id"] = parent
    line["message"] = {"id": message_id, **message, "content": list(content)}
    return json.dumps(line)


def _text_block(text: str) -> dict:
    return {"type": "text", "text": text}


def _result(**fields: object) -> str:
    return json.dumps({"type": "result", **fields})


def _feed(p: StreamJsonParser, *lines: str) -> list:
    out: list = []
    for line in lines:
        out += p.feed(line)
    return out


def _texts(events: list) -> str:
    return "".join(e.text for e in events if isinstance(e, TextChunk))


def test_init_session_id_and_junk_lines_are_skipped() -> None:
    p = StreamJsonParser("claude")
    events = _feed(
        p,
        "",
        "not json at all",
        "[1,2]",
        '{"type":"mystery","x":1}',
        json.dumps({"type": "system", "subtype": "init", "session_id": "abc"}),
        json.dumps({"type": "system", "subtype": "status", "status": "requesting"}),
    )
    assert events == []
    assert p.session_id == "abc"


def test_deltas_then_assistant_message_is_not_double_emitted() -> None:
    p = StreamJsonParser("claude")
    events = _feed(
        p,
        _message_start("m1"),
        _thinking_delta(0, "hmm"),
        _text_delta(1, "Hel"),
        _text_delta(1, "lo"),
        _assistant("m1", {"type": "thinking", "thinking": "hmm"}, _text_block("Hello")),
    )
    assert _texts(events) == "Hello"
    assert [e.text for e in events if isinstance(e, ThinkingChunk)] == ["hmm"]


def test_assistant_without_deltas_is_emitted_and_messages_are_separated() -> None:
    p = StreamJsonParser("claude")
    events = _feed(
        p,
        _assistant("a", _text_block("First")),
        _assistant("b", _text_block("Second")),
    )
    assert _texts(events) == "First\nSecond"


def test_tool_use_streamed_once_and_tool_result_named() -> None:
    p = StreamJsonParser("claude")
    events = _feed(
        p,
        _message_start("m1"),
        _text_delta(0, "Running."),
        _se(
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}},
            }
        ),
        _json_delta(1, '{"command":'),
        _json_delta(1, ' "ls"}'),
        _se({"type": "content_block_stop", "index": 1}),
        _assistant(
            "m1", {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}
        ),
        json.dumps(
            {
                "type": "user",
                "message": {
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "t1",
                            "content": [_text_block("a.txt")],
                            "is_error": False,
                        }
                    ]
                },
            }
        ),
        _message_start("m2"),
        _text_delta(0, "Done."),
    )
    calls = [e for e in events if isinstance(e, ToolCallEvent)]
    assert calls == [ToolCallEvent("t1", "Bash", '{"command": "ls"}')]
    assert [e for e in events if isinstance(e, ToolResultEvent)] == [
        ToolResultEvent("t1", "Bash", "a.txt", False)
    ]
    assert _texts(events) == "Running.\nDone."


def test_synthetic_error_message_is_not_answer_text() -> None:
    p = StreamJsonParser("claude")
    events = _feed(
        p,
        _assistant("x", _text_block("API Error: 401"), model="<synthetic>"),
    )
    assert events == []


def test_result_usage_cost_and_subagent_usage() -> None:
    p = StreamJsonParser("opus")
    # sub-agent traffic: its stream is ignored, its usage is kept (last copy per message)
    sub_usage = {"input_tokens": 7, "output_tokens": 3}
    events = _feed(
        p,
        _text_delta(0, "inner", parent="toolu_task"),
        _assistant(
            "sm1",
            _text_block("inner"),
            parent="toolu_task",
            usage={"input_tokens": 7, "output_tokens": 1},
        ),
        _assistant("sm1", parent="toolu_task", usage=sub_usage),
        _result(
            is_error=False,
            session_id="S2",
            stop_reason="end_turn",
            total_cost_usd=0.25,
            usage={
                "input_tokens": 100,
                "output_tokens": 20,
                "cache_read_input_tokens": 5,
                "cache_creation_input_tokens": 9,
            },
        ),
    )
    assert _texts(events) == ""
    usage = [e for e in events if isinstance(e, UsageEvent)]
    assert usage == [
        UsageEvent("opus", 100, 20, 5, 9, 0.25, ""),
        UsageEvent("opus", 7, 3, 0, 0, 0.0, "subagent"),
    ]
    assert p.session_id == "S2" and p.result is not None and not p.result.is_error


def test_explicit_subagent_usage_in_result_wins() -> None:
    p = StreamJsonParser("m")
    events = _feed(
        p,
        _result(
            is_error=False,
            usage={"input_tokens": 1},
            subagent_usage={"input_tokens": 4, "output_tokens": 2},
        ),
    )
    assert [e.role_suffix for e in events] == ["", "subagent"]
    assert events[1].prompt_tokens == 4


def test_error_result_text_falls_back_to_errors_list() -> None:
    p = StreamJsonParser("m")
    _feed(
        p,
        _result(
            subtype="error_during_execution",
            is_error=True,
            errors=["No conversation found with session ID: x"],
            usage={"input_tokens": 0},
        ),
    )
    assert p.result is not None and p.result.is_error
    assert p.result.error_text() == "No conversation found with session ID: x"


def test_control_requests_are_handed_back_not_emitted() -> None:
    p = StreamJsonParser("m")
    req = {
        "type": "control_request",
        "request_id": "r1",
        "request": {"subtype": "can_use_tool", "tool_name": "Write", "input": {}},
    }
    assert p.feed(json.dumps(req).encode()) == []
    assert p.pending_control == [req]


def test_subagent_tokens_derived_from_model_usage_beyond_main_loop() -> None:
    """CLI 2.1.x: a Task sub-agent's tokens appear only in modelUsage (real shape)."""
    p = StreamJsonParser("m")
    events = _feed(
        p,
        _result(
            is_error=False,
            total_cost_usd=0.1,
            usage={"input_tokens": 300, "output_tokens": 30, "cache_read_input_tokens": 0},
            modelUsage={
                "opus[1m]": {"inputTokens": 300, "outputTokens": 31},
                "haiku": {"inputTokens": 7, "outputTokens": 2, "cacheReadInputTokens": 5},
            },
        ),
    )
    assert events == [
        UsageEvent("m", 300, 30, 0, 0, 0.1, ""),
        UsageEvent("m", 7, 3, 5, 0, 0.0, "subagent"),
    ]
    # no sub-agent traffic → no subagent event
    p2 = StreamJsonParser("m")
    assert (
        len(
            _feed(
                p2,
                _result(
                    usage={"input_tokens": 3},
                    modelUsage={"x": {"inputTokens": 3}},
                ),
            )
        )
        == 1
    )
