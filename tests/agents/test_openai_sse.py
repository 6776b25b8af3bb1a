"""SSE parsing, exact bytes: deltas, tool-call accumulation, usage, the skeleton fast path."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from milk_tui.agents.base import TextChunk, ThinkingChunk
from milk_tui.agents.openai_sse import (
    SSEBackendError,
    SSEFormatError,
    SSEParser,
    normalise_usage,
)


def chunk(delta: dict, finish: str | None = None, **top: object) -> bytes:
    obj = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **top,
    }
    return b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n"


def feed_all(p: SSEParser, *parts: bytes) -> list:
    out = []
    for part in parts:
        out += p.feed(part)
    out += p.close()
    return out


def test_content_and_reasoning_kinds() -> None:
    p = SSEParser()
    evs = feed_all(
        p,
        chunk({"reasoning_content": "think "}),
        chunk({"reasoning": "more"}),
        chunk({"content": "Hel"}),
        chunk({"content": "lo"}),
        chunk({}, "stop"),
        b"data: [DONE]\n\n",
    )
    assert evs == [
        ThinkingChunk("think "),
        ThinkingChunk("more"),
        TextChunk("Hel"),
        TextChunk("lo"),
    ]
    assert p.text == "Hello" and p.reasoning == "think more"
    assert p.done and p.finish_reason == "stop" and p.complete


def test_one_read_with_many_events_is_coalesced_by_kind() -> None:
    p = SSEParser()
    blob = (
        chunk({"reasoning_content": "a"})
        + chunk({"reasoning_content": "b"})
        + chunk({"content": "x"})
        + chunk({"content": "y"})
        + chunk({"content": "z"})
    )
    assert p.feed(blob) == [ThinkingChunk("ab"), TextChunk("xyz")]


def test_lines_split_across_reads() -> None:
    data = chunk({"content": "héllo wörld"}) + chunk({"content": "!"}, "stop")
    for cut in range(1, len(data)):
        p = SSEParser()
        evs = feed_all(p, data[:cut], data[cut:])
        assert "".join(e.text for e in evs) == "héllo wörld!"
        assert p.finish_reason == "stop"


def test_only_data_space_lines_count() -> None:
    p = SSEParser()
    evs = feed_all(
        p,
        b": keep-alive\n\n",
        b"event: message\n",
        b'data:{"choices":[{"delta":{"content":"nospace"}}]}\n\n',
        chunk({"content": "yes"}),
        b"id: 7\n\n",
    )
    assert evs == [TextChunk("yes")]


def test_crlf_line_endings() -> None:
    p = SSEParser()
    data = chunk({"content": "a"}).replace(b"\n", b"\r\n") + b"data: [DONE]\r\n\r\n"
    assert feed_all(p, data) == [TextChunk("a")]
    assert p.done


def test_done_ends_the_stream() -> None:
    p = SSEParser()
    evs = feed_all(
        p,
        chunk({"content": "a"}) + b"data: [DONE]\n\n" + chunk({"content": "b"}),
        chunk({"content": "c"}),
    )
    assert evs == [TextChunk("a")]


def test_stream_without_done_or_finish_is_incomplete() -> None:
    p = SSEParser()
    feed_all(p, chunk({"content": "a"}))
    assert not p.complete
    p2 = SSEParser()
    feed_all(p2, chunk({"content": "a"}, "length"))
    assert p2.complete and p2.finish_reason == "length"


def tc(
    index: int | None, *, id: str | None = None, name: str | None = None, args: str | None = None
) -> dict:
    d: dict = {"function": {}}
    if index is not None:
        d["index"] = index
    if id:
        d["id"] = id
    if name is not None:
        d["function"]["name"] = name
    if args is not None:
        d["function"]["arguments"] = args
    return d


def test_tool_call_deltas_accumulate_by_index_and_sort() -> None:
    p = SSEParser()
    feed_all(
        p,
        chunk({"tool_calls": [tc(1, id="b", name="gr", args='{"pat')]}),
        chunk({"tool_calls": [tc(0, id="a", name="read_", args="")]}),
        chunk({"tool_calls": [tc(1, name="ep", args='tern": "x"}')]}),
        chunk({"tool_calls": [tc(0, name="file", args='{"path": "a.py"}')]}),
        chunk({}, "tool_calls"),
    )
    calls = p.tool_calls()
    assert [(c.call_id, c.name, c.arguments) for c in calls] == [
        ("a", "read_file", '{"path": "a.py"}'),
        ("b", "grep", '{"pattern": "x"}'),
    ]


def test_one_based_indices_work() -> None:
    p = SSEParser()
    feed_all(
        p,
        chunk({"tool_calls": [tc(1, id="x", name="list_dir", args="{}")]}),
        chunk({"tool_calls": [tc(2, id="y", name="grep", args='{"pattern":"a"}')]}),
    )
    assert [c.name for c in p.tool_calls()] == ["list_dir", "grep"]


def test_reused_index_zero_with_new_id_starts_a_new_call() -> None:
    p = SSEParser()
    feed_all(
        p,
        chunk({"tool_calls": [tc(0, id="one", name="list_dir", args="{}")]}),
        chunk({"tool_calls": [tc(0, id="two", name="grep", args='{"pattern":')]}),
        chunk({"tool_calls": [tc(0, args='"q"}')]}),
    )
    assert [(c.call_id, c.name, c.arguments) for c in p.tool_calls()] == [
        ("one", "list_dir", "{}"),
        ("two", "grep", '{"pattern":"q"}'),
    ]


def test_nameless_fragments_dropped_and_missing_ids_generated() -> None:
    p = SSEParser()
    feed_all(
        p,
        chunk({"tool_calls": [tc(0, args='{"orphan": 1}')]}),
        chunk({"tool_calls": [tc(1, name="list_dir", args="{}")]}),
    )
    calls = p.tool_calls()
    assert [c.name for c in calls] == ["list_dir"]
    assert calls[0].call_id


def test_usage_last_one_wins_and_is_normalised() -> None:
    p = SSEParser()
    feed_all(
        p,
        chunk({"content": "a"}, usage={"prompt_tokens": 1, "completion_tokens": 1}),
        b'data: {"choices":[],"usage":{"prompt_tokens":619,"completion_tokens":17,'
        b'"prompt_tokens_details":{"cached_tokens":576}}}\n\n',
    )
    assert p.usage is not None
    assert normalise_usage(p.usage) == (43, 17, 576)


def test_usage_cached_never_makes_prompt_negative() -> None:
    assert normalise_usage(
        {"prompt_tokens": 5, "completion_tokens": 0, "prompt_tokens_details": {"cached_tokens": 9}}
    ) == (0, 0, 9)
    assert normalise_usage(
        {"prompt_tokens": 5, "completion_tokens": 2, "prompt_tokens_details": None}
    ) == (5, 2, 0)


def test_malformed_json_chunk_raises() -> None:
    p = SSEParser()
    with pytest.raises(SSEFormatError):
        feed_all(p, chunk({"content": "a"}), b'data: {"choices": [{"delta": {"content"\n\n')


def test_malformed_chunk_with_a_learned_skeleton_still_raises() -> None:
    p = SSEParser()
    good = chunk({"content": "a"})
    p.feed(good)
    p.feed(chunk({"content": "b"}))
    truncated = good.replace(b'"finish_reason":null}]}', b'"finish_reason":null}]')
    with pytest.raises(SSEFormatError):
        p.feed(truncated)
    bad_escape = good.replace(b'"content":"a"', b'"content":"\\q"')
    with pytest.raises(SSEFormatError):
        SSEParser().feed(chunk({"content": "a"}) + bad_escape)


def test_error_object_in_stream_raises_backend_error() -> None:
    p = SSEParser()
    with pytest.raises(SSEBackendError, match="model crashed"):
        feed_all(p, b'data: {"error":{"message":"model crashed","type":"server_error"}}\n\n')


def test_content_with_finish_in_the_same_chunk_after_skeleton() -> None:
    """A chunk that looks similar but carries a finish_reason must take the full path."""
    p = SSEParser()
    evs = feed_all(
        p, chunk({"content": "a"}), chunk({"content": "b"}), chunk({"content": "c"}, "stop")
    )
    assert "".join(e.text for e in evs) == "abc"
    assert p.finish_reason == "stop"


def test_ollama_style_role_in_every_delta() -> None:
    p = SSEParser()
    evs = feed_all(p, *(chunk({"role": "assistant", "content": t}) for t in ["a", "b", "c"]))
    assert "".join(e.text for e in evs) == "abc"


_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=12)


@settings(max_examples=150, deadline=None)
@given(
    pieces=st.lists(
        st.tuples(st.sampled_from(["content", "reasoning_content"]), _text), min_size=1, max_size=12
    ),
    cuts=st.lists(st.integers(min_value=1, max_value=4000), max_size=6),
    finish_with_last=st.booleans(),
)
def test_fast_path_matches_a_plain_json_parse(
    pieces: list[tuple[str, str]], cuts: list[int], finish_with_last: bool
) -> None:
    """Whatever the chunking, text and thinking equal what json.loads of each chunk gives."""
    chunks = [
        chunk({k: v}, "stop" if finish_with_last and i == len(pieces) - 1 else None)
        for i, (k, v) in enumerate(pieces)
    ]
    data = b"".join(chunks) + b"data: [DONE]\n\n"
    bounds = sorted({c % len(data) for c in cuts} - {0})
    parts = [data[a:b] for a, b in zip([0, *bounds], [*bounds, len(data)], strict=True)]
    p = SSEParser()
    evs = feed_all(p, *parts)
    want_text = "".join(v for k, v in pieces if k == "content")
    want_think = "".join(v for k, v in pieces if k == "reasoning_content")
    assert "".join(e.text for e in evs if isinstance(e, TextChunk)) == want_text
    assert "".join(e.text for e in evs if isinstance(e, ThinkingChunk)) == want_think
    assert p.text == want_text and p.reasoning == want_think
    assert p.done
    one_by_one = SSEParser()  # one event per read: the hot path in feed()
    evs2 = feed_all(one_by_one, *chunks)
    assert "".join(e.text for e in evs2 if isinstance(e, TextChunk)) == want_text
    assert "".join(e.text for e in evs2 if isinstance(e, ThinkingChunk)) == want_think


def test_compact_chunks_learn_the_skeleton() -> None:
    """Guards the performance path: compact content-only chunks must not all be json-parsed."""
    p = SSEParser()
    feed_all(p, chunk({"content": "a"}), chunk({"content": "b"}))
    assert p._text_skel is not None


def test_skeleton_is_relearned_when_the_shape_drifts() -> None:
    """llama.cpp-style per-second "created" stamps change the bytes around the delta."""
    p = SSEParser()
    feed_all(p, chunk({"content": "a"}, created=1), chunk({"content": "b"}, created=1))
    first = p._text_skel
    evs = feed_all(p, chunk({"content": "c"}, created=2), chunk({"content": "d"}, created=2))
    assert p._text_skel is not None and p._text_skel != first
    assert "".join(e.text for e in evs) == "cd"


def test_unique_chunks_do_not_relearn_forever() -> None:
    p = SSEParser()
    evs = feed_all(p, *(chunk({"content": str(i)}, pad="x" * i) for i in range(20)))
    assert "".join(e.text for e in evs) == "".join(str(i) for i in range(20))
    assert p._text_skel is not None and '"pad":""' in p._text_skel[2]  # the first, kept


def test_result_holds_the_whole_completion_or_says_it_was_cut() -> None:
    from milk_tui.agents.base import UsageEvent
    from milk_tui.agents.openai_sse import SSEIncompleteError

    cut = SSEParser("m")
    feed_all(cut, chunk({"content": "par"}))
    with pytest.raises(SSEIncompleteError):
        cut.result()
    p = SSEParser("m")
    usage = {
        "prompt_tokens": 619,
        "completion_tokens": 17,
        "prompt_tokens_details": {"cached_tokens": 576},
    }
    feed_all(
        p,
        chunk({"reasoning_content": "hm"}),
        chunk({"content": "ok"}, finish="stop"),
        b'data: {"choices":[],"usage":' + json.dumps(usage).encode() + b"}\n\n",
        b"data: [DONE]\n\n",
    )
    r = p.result()
    assert (r.text, r.reasoning, r.finish_reason, r.tool_calls) == ("ok", "hm", "stop", [])
    assert r.usage == UsageEvent("m", 43, 17, cache_read=576)


def test_many_events_in_one_read_take_the_skeleton_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards the performance path: once learned, a read holding hundreds of events (what
    read_ahead hands over) is decoded without a json.loads per event."""
    p = SSEParser()
    p.feed(chunk({"content": "a"}))
    p.feed(chunk({"content": "b"}))
    import milk_tui.agents.openai_sse as sse

    def no_loads(_: str) -> None:
        raise AssertionError("json.loads on the hot path")

    monkeypatch.setattr(sse.json, "loads", no_loads)
    burst = b"".join(chunk({"content": f"<{i}> é"}) for i in range(300))
    cut = len(burst) - 7  # the read ends inside the last event
    evs = p.feed(burst[:cut]) + p.feed(burst[cut:])
    assert "".join(e.text for e in evs) == "".join(f"<{i}> é" for i in range(300))
    assert len(evs) <= 2  # coalesced per read


_shapes = st.sampled_from(
    ["content", "reasoning_content", "drift", "tool", "role", "finish", "usage"]
)


@settings(max_examples=150, deadline=None)
@given(
    pieces=st.lists(st.tuples(_shapes, _text), min_size=1, max_size=20),
    cuts=st.lists(st.integers(min_value=1, max_value=8000), max_size=6),
)
def test_reads_of_many_events_match_one_event_per_read(
    pieces: list[tuple[str, str]], cuts: list[int]
) -> None:
    """After the skeleton is learned, events of other shapes in the middle of a read (a
    drifted "created", a tool call, a role-only delta) and reads cut anywhere — inside an
    event, inside a UTF-8 character, between an event and its blank line — give what
    one event per read gives."""

    def event(kind: str, v: str) -> bytes:
        if kind == "drift":
            return chunk({"content": v}, created=2)
        if kind == "tool":
            fn = {"name": "t", "arguments": v}
            return chunk({"tool_calls": [{"index": 0, "id": "c", "function": fn}]})
        if kind == "role":
            return chunk({"role": "assistant"})
        if kind == "finish":  # same bytes before the string, other bytes after it
            return chunk({"content": v}, "length")
        if kind == "usage":
            return chunk({"content": v}, usage={"prompt_tokens": len(v), "completion_tokens": 1})
        return chunk({kind: v})

    learn = [chunk({"content": "x"}), chunk({"reasoning_content": "y"})]
    rest = [event(k, v) for k, v in pieces] + [chunk({}, "stop"), b"data: [DONE]\n\n"]
    data = b"".join(rest)
    bounds = sorted({c % len(data) for c in cuts} - {0})
    parts = [data[a:b] for a, b in zip([0, *bounds], [*bounds, len(data)], strict=True)]
    whole, one_by_one = SSEParser(), SSEParser()
    evs = feed_all(whole, *learn, *parts)
    want = feed_all(one_by_one, *learn, *rest)

    def by_kind(evs: list) -> tuple[str, str]:
        return (
            "".join(e.text for e in evs if isinstance(e, TextChunk)),
            "".join(e.text for e in evs if isinstance(e, ThinkingChunk)),
        )

    assert by_kind(evs) == by_kind(want)
    assert (whole.text, whole.reasoning) == (one_by_one.text, one_by_one.reasoning)
    assert whole.tool_calls() == one_by_one.tool_calls() and whole.done
    assert (whole.finish_reason, whole.usage) == (one_by_one.finish_reason, one_by_one.usage)


def learned() -> SSEParser:
    p = SSEParser()
    p.feed(chunk({"content": "a"}))
    p.feed(chunk({"content": "b"}))
    return p


def test_a_run_with_escapes_and_raw_utf8_is_read_exactly() -> None:
    p = learned()
    texts = [f"<{i}> é 日本" if i % 7 else "" for i in range(200)]
    texts += ["x", 'say "hi"', "tab\there", "back\\slash", "y"]
    # Raw UTF-8 as llama.cpp writes it, and json.dumps's escapes.
    raw = [
        chunk({"content": "@"}).replace(b'"@"', json.dumps(t, ensure_ascii=i % 2 == 0).encode())
        for i, t in enumerate(texts)
    ]
    evs = p.feed(b"".join(raw))
    assert [e.text for e in evs] == ["".join(texts)]


@pytest.mark.parametrize("body", [b'a"b', b"a\tb", b"a\nb", b"a\\qb"])
def test_a_run_with_a_malformed_body_is_refused_as_before(body: bytes) -> None:
    """A body JSON does not allow raw (a quote, a control character, a bad escape) in
    the middle of a run of good ones: the same error as one event per read gives."""
    good = chunk({"content": "ok"})
    bad = good.replace(b'"ok"', b'"' + body + b'"')
    with pytest.raises(SSEFormatError):
        learned().feed(good * 5 + bad + good * 5)
    with pytest.raises(SSEFormatError):
        one = learned()
        for c in [good] * 5 + [bad]:
            one.feed(c)
