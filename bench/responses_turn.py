"""A headless turn over the Responses API vs bare httpx, beside the same for chat completions.

Four cases, alternating in one process (wall-time medians, CPU-time minima): bare httpx reading a 20,000-delta
Responses stream (``aiter_bytes``), the dispatcher turn of an ``api_format = "responses"``
agent on that stream, and the same pair for a 20,000-chunk chat-completions stream.
Printed: each turn / its bare read (the chat budget is ≤ 1.15), and responses ratio / chat
ratio (the Responses path should be no slower than the chat path: about 1 or below).
A Responses event carries more bytes than a chat chunk (an ``event:`` line, a sequence
number, indexes), which is why each turn is compared with a bare read of its own stream.
``--quick`` for a short run.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from headless_stream import bare  # noqa: E402
from headless_turn import headless_dispatcher  # noqa: E402

from milk_tui.agents.openai_responses import OpenAIResponsesAgent  # noqa: E402
from milk_tui.config.settings import AgentConfig  # noqa: E402
from milk_tui.engine.agent_slot import AgentSlot  # noqa: E402
from milk_tui.engine.dispatch import Dispatcher  # noqa: E402
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, usage  # noqa: E402
from milk_tui.testing.fake_openai_responses import (  # noqa: E402
    FakeResponsesServer,
    ResponsesReply,
    responses_usage,
)

Case = tuple[Callable[[Any, str], Awaitable[Any]], Any, str]


def turn_of(disp: Dispatcher) -> Callable[[Any, str], Awaitable[None]]:
    n = [0]

    async def turn(_: object, __: str) -> None:
        n[0] += 1  # a new prompt each round, so the repeated-prompt guard stays quiet
        out = await disp.run_turn(f"benchmark prompt number {n[0]}", force="primary")
        assert out.ok, out.error

    return turn


async def run(chunks: int, rounds: int, tmp: Path) -> dict[str, float]:
    with FakeOpenAIServer() as chat, FakeResponsesServer() as resp:
        chat.default_reply = FakeReply.bulk(chunks, usage=usage(10, chunks))
        resp.default_reply = ResponsesReply.bulk(chunks, usage=responses_usage(10, chunks))
        (tmp / "chat").mkdir()
        (tmp / "resp").mkdir()
        chat_disp, _, chat_db = headless_dispatcher(tmp / "chat", chat.url)
        resp_disp, _, resp_db = headless_dispatcher(tmp / "resp", resp.url)
        ac = AgentConfig(name="bench", url=resp.url, model="fake-model", api_format="responses")
        resp_disp.primary = AgentSlot("primary", ac, OpenAIResponsesAgent(ac))
        async with httpx.AsyncClient(timeout=60) as client:
            read = bare(httpx.Response.aiter_bytes)
            cases: dict[str, Case] = {
                "bare chat": (read, client, chat.url + "/v1/chat/completions"),
                "chat turn": (turn_of(chat_disp), None, ""),
                "bare responses": (read, client, resp.url + "/v1/responses"),
                "responses turn": (turn_of(resp_disp), None, ""),
            }
            for fn, obj, url in cases.values():  # warm-up: encode the replies, connect
                await fn(obj, url)
            wall: dict[str, list[float]] = {k: [] for k in cases}
            cpu: dict[str, list[float]] = {k: [] for k in cases}
            for _ in range(rounds):
                for name, (fn, obj, url) in cases.items():
                    c0, t0 = time.process_time(), time.perf_counter()
                    await fn(obj, url)
                    wall[name].append(time.perf_counter() - t0)
                    cpu[name].append(time.process_time() - c0)
        chat_db.close()
        resp_db.close()
    return {k: statistics.median(v) for k, v in wall.items()}, {k: min(v) for k, v in cpu.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description="a Responses API turn beside a chat turn")
    ap.add_argument("--quick", action="store_true", help="2,000 deltas, 3 rounds")
    quick = ap.parse_args().quick
    chunks, rounds = (2000, 3) if quick else (20000, 7)
    with tempfile.TemporaryDirectory() as tmp:
        med, cpu = asyncio.run(run(chunks, rounds, Path(tmp)))
    print(f"headless turn, responses vs chat: {chunks} deltas, {rounds} alternating rounds")
    print("  (wall: median; cpu: process time, minimum — robust on a busy machine)")
    for name, t in med.items():
        print(f"  {name:<16} wall {t * 1000:8.1f} ms  cpu {cpu[name] * 1000:8.1f} ms")
    for label, d in (("wall", med), ("cpu", cpu)):
        chat = d["chat turn"] / d["bare chat"]
        resp = d["responses turn"] / d["bare responses"]
        print(
            f"  {label}: chat turn / bare chat = {chat:.3f} (target ≤ 1.15), responses "
            f"turn / bare responses = {resp:.3f}, responses / chat = {resp / chat:.3f}"
        )


if __name__ == "__main__":
    main()
