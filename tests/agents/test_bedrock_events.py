"""ConverseStream events → chunks and the round result (pure, no boto3)."""

from __future__ import annotations

import json

from milk_tui.agents.base import TextChunk, ThinkingChunk, UsageEvent
from milk_tui.agents.bedrock_events import ConverseStreamParser
from milk_tui.agents.round_backend import ToolCall


def feed(p: ConverseStreamParser, *events: dict) -> list:
    out: list = []
    for ev in events:
        out += p.feed(ev)
    return out


def delta(index: int, **d: object) -> dict:
    return {"contentBlockDelta": {"contentBlockIndex": index, "delta": d}}


def test_text_reasoning_tools_usage_and_stop() -> None:
    p = ConverseStreamParser("model-x")
    args = json.dumps({"path": "README.md"})
    chunks = feed(
        p,
        {"messageStart": {"role": "assistant"}},
        delta(0, reasoningContent={"text": "think"}),
        delta(0, reasoningContent={"signature": "sig"}),
        delta(1, text="Look"),
        delta(1, text=""),
        delta(1, text="ing."),
        {
            "contentBlockStart": {
                "contentBlockIndex": 3,
                "start": {"toolUse": {"toolUseId": "t2", "name": "b"}},
            }
        },
        {
            "contentBlockStart": {
                "contentBlockIndex": 2,
                "start": {"toolUse": {"toolUseId": "t1", "name": "a"}},
            }
        },
        delta(2, toolUse={"input": args[:5]}),
        delta(3, toolUse={"input": "{}"}),
        delta(2, toolUse={"input": args[5:]}),
        {"messageStop": {"stopReason": "tool_use"}},
        {"metadata": {"usage": {"inputTokens": 11, "outputTokens": 5, "cacheReadInputTokens": 7}}},
    )
    assert chunks == [ThinkingChunk("think"), TextChunk("Look"), TextChunk("ing.")]
    r = p.result()
    assert (r.text, r.reasoning, r.reasoning_signature, r.finish_reason) == (
        "Looking.",
        "think",
        "sig",
        "tool_use",
    )
    assert r.tool_calls == [ToolCall("t1", "a", args), ToolCall("t2", "b", "{}")]
    assert r.usage == UsageEvent("model-x", 11, 5, cache_read=7)


def test_no_usage_and_unknown_events_are_ignored() -> None:
    p = ConverseStreamParser("m")
    assert feed(p, {"metadata": {"usage": {}}}, {"somethingNew": {}}, delta(0, other=1)) == []
    assert p.result().usage is None and p.result().tool_calls == []
