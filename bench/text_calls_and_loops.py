"""Cost of the text tool-call detector and of loop detection on the streaming path, and the
time from the start of a repeating reply to its cut.  All figures come from one run.

1. Detection: ``OpenAICompatAgent.stream()`` over a 20,000-chunk ordinary reply (words,
   now and then inline code, a link, a comparison: the characters that can start a
   delimiter) with tools offered (the detector runs) against the same reply without tools
   (today's path: no detector).  Target ≤ 1.05×.
2. Loop watch: the engine's ``consume_stream`` over the same reply with loop detection on
   against off.
3. Cut: a reply of some prose and then one sentence repeated 2,000 times; how long from the
   first byte of the reply to the cut, how many chunks were read, and what that is at a
   local model's 60 tokens/s.
4. The watch itself: ``RepetitionWatch.check`` fed 4-character chunks of a 160,000-character
   ordinary reply, per chunk, against the same loop that only collects the chunks.  (This
   was an absolute bound in a unit test; speed is measured here, as a ratio.)

Alternating rounds, medians and minima of wall time.
Run: ``python bench/text_calls_and_loops.py`` (``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from collections.abc import AsyncIterator, Awaitable, Callable

from milk_tui.agents.base import (
    Agent,
    AgentEvent,
    AgentRequest,
    TextChunk,
    ToolOutcome,
    ToolSpec,
)
from milk_tui.agents.openai_compat import OpenAICompatAgent
from milk_tui.agents.tools import LocalToolBox, Tool
from milk_tui.config.settings import AgentConfig
from milk_tui.engine.agent_stream import consume_stream
from milk_tui.engine.loop_detection import RepetitionWatch
from milk_tui.engine.turn_scratch import TurnScratch
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, usage

WORDS = (
    "The quick brown fox jumps over the lazy dog while a small model streams its answer "
    "token by token to a terminal that renders Markdown and keeps up without dropping frames "
    "even when the reply runs long and the"
).split()
SPECIAL = [" `x`", " [1]", " a<b"]
SENTENCE = " The Romans also built numerous temples, including the Colosseum."


def ordinary(n: int) -> list[str]:
    """Words in a seeded random order (a fixed cycle of words would itself be a loop)."""
    rnd = random.Random(0)
    return [SPECIAL[i // 50 % 3] if i % 50 == 49 else " " + rnd.choice(WORDS) for i in range(n)]


def box() -> LocalToolBox:
    async def read_file(args: dict[str, object]) -> ToolOutcome:
        return ToolOutcome("")

    return LocalToolBox([Tool(ToolSpec("read_file", "read", {"type": "object"}), read_file)])


async def agent_read(agent: OpenAICompatAgent, tools: LocalToolBox | None) -> int:
    n = 0
    req = AgentRequest(slot="primary", prompt="go", cwd=".", tools=tools)
    async for ev in agent.stream(req):
        n += type(ev) is TextChunk
    return n


async def engine_read(agent: Agent, repeats: int) -> TurnScratch:
    scratch = TurnScratch()
    await consume_stream(
        agent,
        AgentRequest(slot="primary", prompt="go", cwd="."),
        scratch,
        slot="primary",
        fallback_model="m",
        session_id="s",
        publish=lambda e: None,
        on_need=lambda b: None,
        repeats=repeats,
    )
    return scratch


async def wall(fn: Callable[[], Awaitable[object]]) -> float:
    t0 = time.perf_counter()
    await fn()
    return time.perf_counter() - t0


async def run(chunks: int, rounds: int) -> None:
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=ordinary(chunks), usage=usage(10, chunks))
        agent = OpenAICompatAgent(AgentConfig(name="bench", url=srv.url, model="fake-model"))
        tools = box()
        cases: dict[str, Callable[[], Awaitable[object]]] = {
            "agent, no detector (today)": lambda: agent_read(agent, None),
            "agent, detector on": lambda: agent_read(agent, tools),
            "engine, loop watch off": lambda: engine_read(agent, 0),
            "engine, loop watch on": lambda: engine_read(agent, 5),
        }
        for fn in cases.values():
            await fn()  # warm-up
        times: dict[str, list[float]] = {k: [] for k in cases}
        for _ in range(rounds):
            for name, fn in cases.items():
                times[name].append(await wall(fn))
        print(f"ordinary reply: {chunks} chunks, {rounds} alternating rounds")
        for name, v in times.items():
            print(
                f"  {name:<28} min {min(v) * 1000:7.1f} ms  median "
                f"{statistics.median(v) * 1000:7.1f} ms"
            )
        for a, b, target in (
            ("agent, detector on", "agent, no detector (today)", " (target ≤ 1.05)"),
            ("engine, loop watch on", "engine, loop watch off", ""),
        ):
            r_min = min(times[a]) / min(times[b])
            r_med = statistics.median(times[a]) / statistics.median(times[b])
            print(f"  {a} / {b}: min {r_min:.3f}  median {r_med:.3f}{target}")

        prose = ordinary(200)
        srv.default_reply = FakeReply(text=prose + [SENTENCE] * 2000, usage=usage(10, 2200))
        counted = Counting(agent)
        cut = [await wall(lambda: engine_read(counted, 5)) for _ in range(rounds)]
        full = statistics.median([await wall(lambda: engine_read(agent, 0)) for _ in range(3)])
        read = counted.chunks // rounds
        # Paced like a local model: one token a chunk, 60 chunks/s.
        words = SENTENCE.split(" ")[1:]
        loop = [" " + w for w in words] * 200
        srv.default_reply = FakeReply(text=prose[:30] + loop, delay=1 / 60)
        counted.chunks = 0
        paced = await wall(lambda: engine_read(counted, 5)) - 30 / 60
        paced_read = counted.chunks - 30
        await agent.aclose()
    print("repeating reply: 200 chunks of prose, then one sentence 2,000 times (unpaced)")
    print(
        f"  start of reply → cut: median {statistics.median(cut) * 1000:.1f} ms, min "
        f"{min(cut) * 1000:.1f} ms (the same reply read to its end: {full * 1000:.1f} ms); "
        f"chunks read {read} of {len(prose) + 2000}"
    )
    print(
        f"paced at 60 tokens/s, {len(words)} tokens a copy: start of the loop → cut "
        f"{paced:.2f} s, {paced_read} tokens read ({paced_read / len(words):.1f} copies)"
    )


def feed(text: str, watch: RepetitionWatch | None) -> float:
    """Seconds to take ``text`` in 4-character chunks, checking when the watch asks."""
    parts: list[str] = []
    chars = 0
    t0 = time.perf_counter()
    for i in range(0, len(text), 4):
        parts.append(text[i : i + 4])
        chars += 4
        if watch is not None and chars >= watch.next_check:
            watch.check(parts, chars)
    return time.perf_counter() - t0


def watch_cost(rounds: int) -> None:
    text = "".join(f"word{i} and some more text, number {i}. " for i in range(4000))
    chunks = len(text) / 4
    base: list[float] = []
    watched: list[float] = []
    for _ in range(rounds):  # alternating: a slow moment of the machine hits both
        base.append(feed(text, None))
        watched.append(feed(text, RepetitionWatch(5)))
    b, w = statistics.median(base), statistics.median(watched)
    print(f"repetition watch: {len(text)} characters in {int(chunks)} chunks of 4")
    print(
        f"  collect only {b / chunks * 1e6:.3f} µs/chunk, with the watch "
        f"{w / chunks * 1e6:.3f} µs/chunk (watch alone {(w - b) / chunks * 1e6:.3f}); "
        f"ratio {w / b:.2f}× (min {min(watched) / min(base):.2f}×)"
    )


class Counting:
    """The agent, counting the text chunks its reader took."""

    def __init__(self, inner: OpenAICompatAgent) -> None:
        self.inner = inner
        self.name, self.model = inner.name, inner.model
        self.chunks = 0

    async def stream(self, request: AgentRequest) -> AsyncIterator[AgentEvent]:
        async for e in self.inner.stream(request):
            self.chunks += type(e) is TextChunk
            yield e


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="2,000 chunks, 3 rounds")
    a = ap.parse_args()
    chunks, rounds = (2000, 3) if a.quick else (20000, 9)
    asyncio.run(run(chunks, rounds))
    watch_cost(rounds * 3)


if __name__ == "__main__":
    main()
