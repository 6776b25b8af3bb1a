"""Every wire parser meets valid JSON of the wrong shape: one error naming the field, never a
Python exception from deep inside.  Hypothesis puts a wrong-typed JSON value into each
field a parser reads (``content`` a number, ``tool_calls`` an object, ``delta`` an array,
``usage`` a string …); the SSE line splitter is checked for exact bytes across any split."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from milk_tui.agents.bedrock_events import ConverseStreamParser
from milk_tui.agents.claude_cli import _SHAPE_FAULTS
from milk_tui.agents.claude_stream import StreamJsonParser
from milk_tui.agents.openai_sse import SSEBackendError, SSEFormatError, SSEParser
from milk_tui.agents.wire_shape import WireShapeError

Path = tuple[str | int, ...]

SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=6,
)


def json_kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    return {float: "float", str: "str", list: "list", dict: "dict"}[type(v)]


def wrong(*allowed: str) -> st.SearchStrategy[Any]:
    """JSON values whose kind is none of ``allowed`` (null is always allowed: absent)."""
    return JSON.filter(lambda v: json_kind(v) not in (*allowed, "null"))


def put(obj: Any, path: Path, value: Any) -> Any:
    obj = copy.deepcopy(obj)
    at = obj
    for key in path[:-1]:
        at = at[key]
    at[path[-1]] = value
    return obj


def dotted(path: Path) -> str:
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else key)
    return out


# ----- OpenAI-compatible SSE ------------------------------------------------------------

SSE_CHUNK = {
    "id": "c1",
    "object": "chat.completion.chunk",
    "choices": [
        {
            "index": 0,
            "delta": {
                "content": "hi",
                "reasoning_content": "hm",
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "read_file", "arguments": "{}"},
                    }
                ],
            },
            "finish_reason": None,
        }
    ],
    "usage": {
        "prompt_tokens": 3,
        "completion_tokens": 2,
        "prompt_tokens_details": {"cached_tokens": 1},
    },
}
TC: Path = ("choices", 0, "delta", "tool_calls", 0)
SSE_FIELDS: list[tuple[Path, tuple[str, ...]]] = [
    (("choices", 0), ("dict",)),
    (("choices", 0, "delta"), ("dict",)),
    (("choices", 0, "delta", "content"), ("str",)),
    (("choices", 0, "delta", "reasoning_content"), ("str",)),
    (("choices", 0, "delta", "reasoning"), ("str",)),
    (("choices", 0, "finish_reason"), ("str",)),
    (("choices", 0, "delta", "tool_calls"), ("list",)),
    (TC, ("dict",)),
    ((*TC, "index"), ("int",)),
    ((*TC, "id"), ("str",)),
    ((*TC, "function"), ("dict",)),
    ((*TC, "function", "name"), ("str",)),
    ((*TC, "function", "arguments"), ("str",)),
    (("usage",), ("dict",)),
    (("usage", "prompt_tokens"), ("int", "float")),
    (("usage", "completion_tokens"), ("int", "float")),
    (("usage", "prompt_tokens_details"), ("dict",)),
    (("usage", "prompt_tokens_details", "cached_tokens"), ("int", "float")),
]


def sse(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def sse_error(obj: Any) -> str:
    p = SSEParser("m")
    with pytest.raises(SSEFormatError) as err:
        p.feed(sse(obj))
        p.close()
        p.result()
    return str(err.value)


def test_the_base_chunk_is_well_formed() -> None:
    p = SSEParser("m")
    p.feed(sse(SSE_CHUNK) + b"data: [DONE]\n\n")
    r = p.result()
    assert (r.text, r.reasoning, r.tool_calls[0].name) == ("hi", "hm", "read_file")


@pytest.mark.parametrize(("path", "allowed"), SSE_FIELDS, ids=[dotted(p) for p, _ in SSE_FIELDS])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data())
def test_a_wrong_typed_sse_field_is_named(path: Path, allowed: tuple[str, ...], data) -> None:
    value = data.draw(wrong(*allowed))
    message = sse_error(put(SSE_CHUNK, path, value))
    assert message.startswith(f"{dotted(path)} is "), message
    assert "(expected " in message


@pytest.mark.parametrize("value", [-1, 1e300, "12"])
def test_a_token_count_must_be_a_count(value: Any) -> None:
    assert sse_error(put(SSE_CHUNK, ("usage", "prompt_tokens"), value)).startswith(
        "usage.prompt_tokens is "
    )


def test_choices_null_is_wrong_except_beside_usage() -> None:
    no_usage = {k: v for k, v in SSE_CHUNK.items() if k != "usage"}
    assert sse_error({**no_usage, "choices": None}) == "choices is null (expected an array)"
    p = SSEParser("m")
    p.feed(sse({"choices": None, "usage": {"prompt_tokens": 4, "completion_tokens": 1}}))
    p.feed(sse({"choices": [{"delta": {}, "finish_reason": "stop"}]}))
    assert p.result().usage is not None


def test_a_wrong_type_after_the_skeleton_shortcut_is_still_named() -> None:
    p = SSEParser("m")
    ok = {"choices": [{"index": 0, "delta": {"content": "a"}, "finish_reason": None}]}
    for _ in range(4):
        p.feed(sse(ok))  # learns the skeleton; the hot path now decodes just the literal
    with pytest.raises(SSEFormatError, match=r"choices\[0\]\.delta\.content is a number"):
        p.feed(sse(put(ok, ("choices", 0, "delta", "content"), 7)))


@settings(max_examples=300, deadline=None)
@given(obj=st.dictionaries(st.sampled_from(["choices", "usage", "error", "x"]), JSON, max_size=3))
def test_any_json_object_is_a_chunk_or_a_named_error(obj: dict[str, Any]) -> None:
    p = SSEParser("m")
    try:
        p.feed(sse(obj) + b'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\n')
        p.result()
    except (SSEFormatError, SSEBackendError):
        pass


@settings(max_examples=200, deadline=None)
@given(texts=st.lists(st.text(), min_size=1, max_size=5), cuts=st.lists(st.integers(0, 400)))
def test_lines_split_anywhere_give_the_same_text(texts: list[str], cuts: list[int]) -> None:
    """The pending-line buffer (a list joined at the newline) loses and repeats nothing."""
    blob = b"".join(sse({"choices": [{"delta": {"content": t}}]}) for t in texts)
    blob += b'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}'  # no final newline
    bounds = sorted({c % (len(blob) + 1) for c in cuts} | {0, len(blob)})
    p = SSEParser("m")
    for a, b in zip(bounds, bounds[1:], strict=False):
        p.feed(blob[a:b])
    p.close()
    assert p.result().text == "".join(texts)


# ----- Bedrock ConverseStream ------------------------------------------------------------

BEDROCK_EVENTS: dict[str, dict[str, Any]] = {
    "text": {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "hi"}}},
    "tool_input": {
        "contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolUse": {"input": "{}"}}}
    },
    "reasoning": {
        "contentBlockDelta": {
            "contentBlockIndex": 0,
            "delta": {"reasoningContent": {"text": "hm", "signature": "s"}},
        }
    },
    "tool_start": {
        "contentBlockStart": {
            "contentBlockIndex": 1,
            "start": {"toolUse": {"toolUseId": "t1", "name": "read_file"}},
        }
    },
    "stop": {"messageStop": {"stopReason": "end_turn"}},
    "usage": {"metadata": {"usage": {"inputTokens": 3, "outputTokens": 2}}},
}
BD, BS = "contentBlockDelta", "contentBlockStart"
BEDROCK_FIELDS: list[tuple[str, Path, tuple[str, ...]]] = [
    ("text", (BD,), ("dict",)),
    ("text", (BD, "delta"), ("dict",)),
    ("text", (BD, "delta", "text"), ("str",)),
    ("tool_input", (BD, "delta", "toolUse"), ("dict",)),
    ("tool_input", (BD, "delta", "toolUse", "input"), ("str",)),
    ("tool_input", (BD, "contentBlockIndex"), ("int",)),
    ("reasoning", (BD, "delta", "reasoningContent"), ("dict",)),
    ("reasoning", (BD, "delta", "reasoningContent", "text"), ("str",)),
    ("reasoning", (BD, "delta", "reasoningContent", "signature"), ("str",)),
    ("tool_start", (BS,), ("dict",)),
    ("tool_start", (BS, "start"), ("dict",)),
    ("tool_start", (BS, "start", "toolUse"), ("dict",)),
    ("tool_start", (BS, "start", "toolUse", "toolUseId"), ("str",)),
    ("tool_start", (BS, "start", "toolUse", "name"), ("str",)),
    ("tool_start", (BS, "contentBlockIndex"), ("int",)),
    ("stop", ("messageStop",), ("dict",)),
    ("stop", ("messageStop", "stopReason"), ("str",)),
    ("usage", ("metadata",), ("dict",)),
    ("usage", ("metadata", "usage"), ("dict",)),
    ("usage", ("metadata", "usage", "inputTokens"), ("int",)),
    ("usage", ("metadata", "usage", "outputTokens"), ("int",)),
]


def test_the_base_events_are_well_formed() -> None:
    p = ConverseStreamParser("m")
    for ev in BEDROCK_EVENTS.values():
        p.feed(ev)
    r = p.result()
    assert (r.text, r.reasoning, r.tool_calls[0].name, r.finish_reason) == (
        "hi",
        "hm",
        "read_file",
        "end_turn",
    )


@pytest.mark.parametrize(
    ("event", "path", "allowed"), BEDROCK_FIELDS, ids=[dotted(p) for _, p, _ in BEDROCK_FIELDS]
)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data())
def test_a_wrong_typed_bedrock_field_is_named(
    event: str, path: Path, allowed: tuple[str, ...], data
) -> None:
    value = data.draw(wrong(*allowed))
    p = ConverseStreamParser("m")
    with pytest.raises(WireShapeError) as err:
        p.feed(put(BEDROCK_EVENTS[event], path, value))
    assert str(err.value).startswith(f"{dotted(path)} is "), str(err.value)


# ----- Claude CLI stream-json --------------------------------------------------------------

CLAUDE_LINES = [
    {"type": "system", "session_id": "s"},
    {
        "type": "stream_event",
        "event": {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta"}},
    },
    {
        "type": "stream_event",
        "event": {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use"}},
    },
    {"type": "assistant", "message": {"id": "m", "content": [{"type": "text", "text": "a"}]}},
    {"type": "user", "message": {"content": [{"type": "tool_result", "content": "x"}]}},
    {"type": "result", "usage": {"input_tokens": 1}, "modelUsage": {"m": {"inputTokens": 2}}},
]


@settings(max_examples=300, deadline=None)
@given(line=st.sampled_from(CLAUDE_LINES), data=st.data())
def test_claude_lines_of_any_shape_fail_only_in_the_ways_the_agent_words(
    line: dict[str, Any], data
) -> None:
    """ClaudeCliAgent turns exactly ``_SHAPE_FAULTS`` into one malformed-line error."""
    obj = copy.deepcopy(line)
    at = obj
    while True:  # walk down to a random container and replace one of its values
        keys = list(at) if isinstance(at, dict) else list(range(len(at)))
        key = data.draw(st.sampled_from(keys))
        child = at[key]
        if isinstance(child, dict | list) and child and data.draw(st.booleans()):
            at = child
            continue
        if key == "type":
            break  # changing a line's kind only makes it one we ignore
        at[key] = data.draw(JSON)
        break
    p = StreamJsonParser("m")
    try:
        p.feed(json.dumps(obj))
    except _SHAPE_FAULTS:
        pass
