"""The Responses stream parser on exact bytes: the skeleton shortcut agrees with a full parse
on every case it may meet, calls are assembled from the events servers really send, and
a server's other habits (no event lines, no numbers, done-only text) read the same."""

from __future__ import annotations

import json

import pytest

from milk_tui.agents.base import TextChunk, ThinkingChunk
from milk_tui.agents.openai_responses_stream import ResponsesParser
from milk_tui.agents.openai_sse import SSEFormatError
from milk_tui.testing.fake_openai_responses import FakeToolCall, ResponsesReply, responses_usage


def feed_all(events: list[bytes], split: int = 0) -> tuple[ResponsesParser, list[object]]:
    """Feed the events one HTTP chunk each, or re-cut into ``split``-byte reads."""
    p = ResponsesParser("m")
    out: list[object] = []
    data = events if not split else _recut(b"".join(events), split)
    for d in data:
        out += p.feed(d)
    out += p.close()
    return p, out


def _recut(blob: bytes, n: int) -> list[bytes]:
    return [blob[i : i + n] for i in range(0, len(blob), n)]


TRICKY = ["a", 'quote " and \\ slash', "ünïcødé ✓", "", "\n\t", "tok", "9", "\u2028"]


@pytest.mark.parametrize("split", [0, 1, 7, 4096])
@pytest.mark.parametrize("event_lines", [True, False])
def test_text_is_the_same_however_the_bytes_arrive(split: int, event_lines: bool) -> None:
    reply = ResponsesReply(text=TRICKY * 3, event_lines=event_lines, usage=responses_usage(5, 9))
    p, out = feed_all(reply.events(), split)
    assert p.result().text == "".join(TRICKY * 3)
    assert "".join(e.text for e in out if isinstance(e, TextChunk)) == "".join(TRICKY * 3)
    assert p.result().usage is not None and p.result().usage.completion_tokens == 9


def _delta(seq: object, delta: str = "x", item: str = "msg_1") -> bytes:
    body = (
        f'{{"type":"response.output_text.delta","sequence_number":{seq},'
        f'"item_id":"{item}","output_index":0,"content_index":0,"delta":{json.dumps(delta)}}}'
    )
    return f"event: response.output_text.delta\ndata: {body}\n\n".encode()


@pytest.mark.parametrize("bad", ["012", "1e3x", "-", ""])
def test_the_shortcut_refuses_what_json_would_refuse(bad: str) -> None:
    """A leading zero or a non-number where the number was is not JSON: after the skeleton
    is learned the line still takes the full parse, which says so."""
    p = ResponsesParser("m")
    for i in range(3):
        p.feed(_delta(i + 1))
    assert p.feed(_delta(12, "ok")) == [TextChunk("ok")]
    with pytest.raises(SSEFormatError):
        p.feed(_delta(bad))


def test_a_number_of_another_type_is_read_by_the_full_parse() -> None:
    p = ResponsesParser("m")
    for i in range(3):
        p.feed(_delta(i + 1))
    assert p.feed(_delta('"4"', "s")) == [TextChunk("s")]
    assert p.feed(_delta(1.5, "f")) == [TextChunk("f")]
    assert p.text == "xxxsf"


def test_a_changed_shape_takes_the_full_parse() -> None:
    p = ResponsesParser("m")
    for i in range(3):
        p.feed(_delta(i))
    # Another item, an escaped string, and an extra field: all read correctly.
    assert p.feed(_delta(5, "b", item="msg_2")) == [TextChunk("b")]
    assert p.feed(_delta(6, "\u00e9\\")) == [TextChunk("\u00e9\\")]
    extra = _delta(7, "c").replace(b',"delta"', b',"logprobs":[],"delta"')
    assert p.feed(extra) == [TextChunk("c")]
    assert p.text == "xxxb\u00e9\\c"


def test_text_done_is_used_only_when_no_delta_came() -> None:
    lines = [
        'data: {"type":"response.output_text.delta","item_id":"a","delta":"hi"}',
        'data: {"type":"response.output_text.done","item_id":"a","text":"hi"}',
        'data: {"type":"response.output_text.done","item_id":"b","text":" there"}',
        'data: {"type":"response.completed","response":{"status":"completed"}}',
        "",
    ]
    p, out = feed_all([("\n".join(lines) + "\n").encode()])
    assert p.result().text == "hi there"


def test_reasoning_parts_are_paragraphs_and_come_as_thinking() -> None:
    def summary(index: int, delta: str) -> str:
        return (
            'data: {"type":"response.reasoning_summary_text.delta","item_id":"rs",'
            f'"output_index":0,"summary_index":{index},"delta":"{delta}"}}'
        )

    lines = [summary(0, "one"), summary(0, " more"), summary(1, "two"), ""]
    lines.append('data: {"type":"response.completed","response":{}}')
    p, out = feed_all([(line + "\n").encode() for line in lines])
    assert p.result().reasoning == "one more\n\ntwo"
    assert all(isinstance(e, ThinkingChunk) for e in out)


def test_calls_from_items_and_argument_events() -> None:
    reply = ResponsesReply(
        text=["calling"],
        tool_calls=[
            FakeToolCall("read_file", '{"path": "a.txt"}', id="c1", fragments=3),
            FakeToolCall("grep", '{"pattern": "x"}', id="c2"),
        ],
    )
    p, _ = feed_all(reply.events())
    r = p.result()
    assert [(c.call_id, c.name, c.arguments) for c in r.tool_calls] == [
        ("c1", "read_file", '{"path": "a.txt"}'),
        ("c2", "grep", '{"pattern": "x"}'),
    ]
    assert r.finish_reason == "tool_calls"


def test_a_call_without_argument_deltas_takes_the_finished_item() -> None:
    item = {"id": "fc_1", "type": "function_call", "call_id": "c9", "name": "list_dir"}
    lines = [
        {"type": "response.output_item.added", "output_index": 0, "item": dict(item, arguments="")},
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": dict(item, arguments="{}"),
        },
        {"type": "response.completed", "response": {}},
    ]
    p, _ = feed_all([f"data: {json.dumps(x)}\n\n".encode() for x in lines])
    assert [(c.call_id, c.name, c.arguments) for c in p.result().tool_calls] == [
        ("c9", "list_dir", "{}")
    ]


def test_argument_deltas_by_index_when_the_item_id_is_missing() -> None:
    lines = [
        {"type": "response.output_item.added", "output_index": 1,
         "item": {"type": "function_call", "call_id": "c1", "name": "grep", "arguments": ""}},
        {"type": "response.function_call_arguments.delta", "output_index": 1, "delta": '{"pattern"'},
        {"type": "response.function_call_arguments.delta", "output_index": 1, "delta": ': "y"}'},
        {"type": "response.completed", "response": {}},
    ]  # fmt: skip
    p, _ = feed_all([f"data: {json.dumps(x)}\n\n".encode() for x in lines])
    assert [(c.name, c.arguments) for c in p.result().tool_calls] == [("grep", '{"pattern": "y"}')]


def test_unknown_events_and_done_marker_are_fine() -> None:
    lines = [
        'data: {"type":"response.web_search_call.searching","item_id":"ws"}',
        'data: {"type":"response.output_text.delta","delta":"ok"}',
        "data: [DONE]",
        "",
    ]
    p, _ = feed_all([("\n".join(lines)).encode()])
    assert p.result().text == "ok"
