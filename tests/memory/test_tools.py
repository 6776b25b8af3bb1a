"""Memory tools for API agents (OpenAI-compatible, Bedrock)."""

from __future__ import annotations

import json

from milk_tui.engine.memory_tools import MemoryToolBox, cap
from milk_tui.memory.service import MemoryService

S = "sess-t"


def box(mem: MemoryService, slot: str = "primary", prompt: str = "", **kw) -> MemoryToolBox:
    return MemoryToolBox(mem, slot, S, "llama", "deepseek", prompt, **kw)


async def test_specs_are_json_schemas(mem: MemoryService) -> None:
    names = [s.name for s in box(mem).specs()]
    assert names == ["record_memory", "get_memory", "list_memory", "forget_memory"]
    for s in box(mem).specs():
        assert s.parameters["type"] == "object" and isinstance(s.parameters["required"], list)
        json.dumps(s.parameters)
    assert "record_memory" not in [s.name for s in box(mem, include_record=False).specs()]


async def test_record_defaults_and_reinforce(mem: MemoryService) -> None:
    b = box(mem, slot="escalation")
    out = await b.call(
        "record_memory",
        json.dumps({"content": "the api lives at port 8080", "consumer": "primary"}),
    )
    assert not out.is_error and out.content.startswith("recorded percept #")
    p = mem.list()[0]
    assert (p.producer, p.consumer, p.session_id) == ("escalation", "primary", S)
    again = await b.call(
        "record_memory", json.dumps({"content": "api lives on port 8080", "producer": "user"})
    )
    assert again.content.startswith(f"reinforced similar percept #{p.id}")
    assert mem.count() == 1
    bad = await b.call("record_memory", json.dumps({"content": "  "}))
    assert bad.is_error
    assert (await b.call("record_memory", "{not json")).is_error


async def test_get_memory_role_filter_and_confidence(mem: MemoryService) -> None:
    mem.record("cache dir is /tmp/cache", "user", session_id=S)
    mem.record("cache for escalation only", "primary", "escalation", session_id=S)
    mem.record("cache weak hint", "system", session_id=S, weight=0.3)
    out = (await box(mem).call("get_memory", json.dumps({"query": "cache"}))).content
    assert out.splitlines() == ["[0.90] cache dir is /tmp/cache"]
    esc = (
        await box(mem, "escalation").call(
            "get_memory", json.dumps({"query": "cache", "min_confidence": 0.1})
        )
    ).content
    assert "escalation only" in esc and "weak hint" in esc
    words = (
        await box(mem).call("get_memory", json.dumps({"query": "where is the cache dir?"}))
    ).content
    assert words.splitlines()[0] == "[0.90] cache dir is /tmp/cache"  # any word matches, best first
    none = await box(mem).call("get_memory", json.dumps({"query": "zebra"}))
    assert none.content == "(no relevant memories found)"


async def test_list_memory_table_gate_and_cap(mem: MemoryService) -> None:
    mem.record("deploys use terraform " + "x" * 60, "user", session_id=S)
    mem.record("coffee machine is broken", "primary", session_id=S)
    table = (await box(mem, prompt="how do deploys work").call("list_memory", "{}")).content
    assert table.splitlines()[0].split() == [
        "ID",
        "SCOPE",
        "W",
        "CORE",
        "PRODUCER",
        "FOR",
        "CONTENT",
    ]
    assert "terraform" in table and "coffee" not in table and table.endswith("...")
    everything = (await box(mem, relevance_gate=False).call("list_memory", "{}")).content
    assert "coffee" in everything
    small = await box(mem, max_bytes=60, relevance_gate=False).call("list_memory", "{}")
    assert len(small.content.encode()) <= 60 and small.content.endswith("(truncated)")
    assert cap("héllo wörld", 3) != ""


async def test_forget_memory(mem: MemoryService) -> None:
    p = mem.record("forget me please", "user", session_id=S)
    other = mem.record("belongs elsewhere", "user", session_id="other-session")
    b = box(mem)
    assert (await b.call("forget_memory", json.dumps({"id": f"#{other.id}"}))).content.endswith(
        "not found"
    )
    assert (await b.call("forget_memory", json.dumps({"id": "#"}))).is_error
    assert (
        await b.call("forget_memory", json.dumps({"id": f"#{p.id}"}))
    ).content == f"percept #{p.id} deleted"
    assert mem.get(p.id) is None and mem.history(p.id)[0]["editor"] == "llama"
