"""Headless turn cost vs a bare httpx read of the same SSE stream (budget: ≤ 1.10×).

A local fake OpenAI server (milk_tui.testing.fake_openai) streams N one-token chunks, one
HTTP chunk per SSE event like llama.cpp.  Measured in the same run, alternating, medians:

* bare bytes  — httpx ``aiter_bytes()`` over the response, doing nothing with it;
* bare raw    — httpx ``aiter_raw()`` (no content decoding; what the agent itself uses when
  the response is not compressed — it asks for ``Accept-Encoding: identity``);
* bare lines  — httpx ``aiter_lines()`` (what the simplest SSE client must at least do);
* agent       — ``OpenAICompatAgent.stream()`` consumed to the end (parse, events, usage).

The ratio the budget refers to is agent / bare bytes.  Both wall time and process CPU time
are reported (min and median over alternating rounds): on a shared 2-core box other jobs
inflate wall time at random, and the minimum / CPU time are the robust figures.
Run: ``python bench/headless_stream.py`` (``--quick`` for a short smoke run).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx

from milk_tui.agents.base import AgentRequest, TextChunk
from milk_tui.agents.openai_compat import OpenAICompatAgent
from milk_tui.config.settings import AgentConfig
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, usage

BODY = {"model": "fake-model", "stream": True, "messages": [{"role": "user", "content": "go"}]}

BareRead = Callable[[httpx.AsyncClient, str], Awaitable[int]]


def bare(read: Callable[[httpx.Response], AsyncIterator[Any]]) -> BareRead:
    """A bare reader of the stream: POST, then count what ``read`` yields, nothing more."""

    async def read_all(client: httpx.AsyncClient, url: str) -> int:
        n = 0
        async with client.stream("POST", url, json=BODY) as r:
            async for _ in read(r):
                n += 1
        return n

    return read_all


async def agent_turn(agent: OpenAICompatAgent, _url: str) -> int:
    n = 0
    async for ev in agent.stream(AgentRequest(slot="primary", prompt="go", cwd=".")):
        if type(ev) is TextChunk:
            n += 1
    return n


async def timed(fn: Callable[..., Awaitable[int]], *args: Any) -> tuple[float, float]:
    c0, t0 = time.process_time(), time.perf_counter()
    await fn(*args)
    return time.perf_counter() - t0, time.process_time() - c0


async def run(chunks: int, rounds: int) -> dict[str, list[tuple[float, float]]]:
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply.bulk(chunks, usage=usage(10, chunks))
        url = srv.url + "/v1/chat/completions"
        agent = OpenAICompatAgent(AgentConfig(name="bench", url=srv.url, model="fake-model"))
        async with httpx.AsyncClient(timeout=60) as client:
            cases = {
                "bare bytes": (bare(httpx.Response.aiter_bytes), client),
                "bare raw": (bare(httpx.Response.aiter_raw), client),
                "bare lines": (bare(httpx.Response.aiter_lines), client),
                "agent": (agent_turn, agent),
            }
            for fn, obj in cases.values():  # warm-up: encode the reply, open connections
                await fn(obj, url)
            times: dict[str, list[tuple[float, float]]] = {k: [] for k in cases}
            for _ in range(rounds):
                for name, (fn, obj) in cases.items():
                    times[name].append(await timed(fn, obj, url))
        await agent.aclose()
    return times


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="2,000 chunks, 3 rounds")
    ap.add_argument("--chunks", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=9)
    a = ap.parse_args()
    chunks, rounds = (2000, 3) if a.quick else (a.chunks, a.rounds)
    times = asyncio.run(run(chunks, rounds))
    stats = {
        name: {
            "wall min": min(w for w, _ in v),
            "wall median": statistics.median(w for w, _ in v),
            "cpu min": min(c for _, c in v),
            "cpu median": statistics.median(c for _, c in v),
        }
        for name, v in times.items()
    }
    print(f"headless stream: {chunks} chunks, {rounds} alternating rounds")
    print(
        f"  {'':<11} {'wall min':>10} {'wall median':>12} {'cpu min':>9} {'cpu median':>11}"
        "  chunks/s (wall min)"
    )
    for name, st in stats.items():
        print(
            f"  {name:<11} {st['wall min'] * 1000:8.1f}ms {st['wall median'] * 1000:10.1f}ms "
            f"{st['cpu min'] * 1000:7.1f}ms {st['cpu median'] * 1000:9.1f}ms  "
            f"{chunks / st['wall min']:9.0f}"
        )
    for base in ("bare bytes", "bare raw", "bare lines"):
        ratios = "  ".join(f"{k} {stats['agent'][k] / stats[base][k]:.3f}" for k in stats[base])
        target = "  (target ≤ 1.10)" if base == "bare bytes" else ""
        print(f"  agent / {base}: {ratios}{target}")


if __name__ == "__main__":
    main()
