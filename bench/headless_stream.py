"""Headless turn cost vs a bare httpx read of the same SSE stream (DESIGN §6: ≤ 1.15×).

A local fake OpenAI server (milk_tui.testing.fake_openai) streams N one-token chunks, one
HTTP chunk per SSE event like llama.cpp.  Measured in the same run, alternating, medians:

* bare bytes  — httpx ``aiter_bytes()`` over the response, doing nothing with it;
* bare lines  — httpx ``aiter_lines()`` (what the simplest SSE client must at least do);
* agent       — ``OpenAICompatAgent.stream()`` consumed to the end (parse, events, usage).

The ratio the budget refers to is agent / bare bytes.  Run: ``python bench/headless_stream.py``
(``--quick`` for a short smoke run).  The lead may extend this script with the dispatcher path.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

import httpx

from milk_tui.agents.base import AgentRequest, TextChunk
from milk_tui.agents.openai_compat import OpenAICompatAgent
from milk_tui.config.settings import AgentConfig
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, usage

BODY = {"model": "fake-model", "stream": True, "messages": [{"role": "user", "content": "go"}]}


async def bare_bytes(client: httpx.AsyncClient, url: str) -> int:
    n = 0
    async with client.stream("POST", url, json=BODY) as r:
        async for _ in r.aiter_bytes():
            n += 1
    return n


async def bare_lines(client: httpx.AsyncClient, url: str) -> int:
    n = 0
    async with client.stream("POST", url, json=BODY) as r:
        async for _ in r.aiter_lines():
            n += 1
    return n


async def agent_turn(agent: OpenAICompatAgent, _url: str) -> int:
    n = 0
    async for ev in agent.stream(AgentRequest(slot="primary", prompt="go", cwd=".")):
        if type(ev) is TextChunk:
            n += 1
    return n


async def timed(fn, *args) -> float:  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    await fn(*args)
    return time.perf_counter() - t0


async def run(chunks: int, rounds: int) -> dict[str, float]:
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply.bulk(chunks, usage=usage(10, chunks))
        url = srv.url + "/v1/chat/completions"
        agent = OpenAICompatAgent(AgentConfig(name="bench", url=srv.url, model="fake-model"))
        async with httpx.AsyncClient(timeout=60) as client:
            cases = {"bare bytes": (bare_bytes, client), "bare lines": (bare_lines, client),
                     "agent": (agent_turn, agent)}
            for fn, obj in cases.values():  # warm-up: encode the reply, open connections
                await fn(obj, url)
            times: dict[str, list[float]] = {k: [] for k in cases}
            for _ in range(rounds):
                for name, (fn, obj) in cases.items():
                    times[name].append(await timed(fn, obj, url))
        await agent.aclose()
    return {k: statistics.median(v) for k, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="2,000 chunks, 3 rounds")
    ap.add_argument("--chunks", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=9)
    a = ap.parse_args()
    chunks, rounds = (2000, 3) if a.quick else (a.chunks, a.rounds)
    med = asyncio.run(run(chunks, rounds))
    print(f"headless stream: {chunks} chunks, median of {rounds}")
    for name, t in med.items():
        print(f"  {name:<11} {t * 1000:8.1f} ms  {chunks / t:9.0f} chunks/s")
    print(f"  ratio agent / bare bytes = {med['agent'] / med['bare bytes']:.3f}  (target ≤ 1.15)")
    print(f"  ratio agent / bare lines = {med['agent'] / med['bare lines']:.3f}")


if __name__ == "__main__":
    main()
