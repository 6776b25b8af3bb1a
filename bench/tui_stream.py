"""TUI streaming benchmark, headless ``run_test`` against the local SSE server.

Measured in the same run:

* bare httpx — read the same stream with ``aiter_lines`` (the floor any client pays);
* TUI — a real turn in MilkApp: fake server → OpenAI-compatible agent → dispatcher → bus →
  bridge → conversation; the clock stops when the final full Markdown render of the reply
  is on screen.  Run at 1,000 and 20,000 chunks to show there is no slowdown as a reply
  grows;
* key wait — while a 20,000-chunk reply streams, a key is posted every ~25 ms and the time
  until the prompt's text changes is recorded (worst and median).

Targets: sustained ≥ 5,000 chunks/s; 20,000-chunk reply ≤ 5 s; throughput(20k) ≥ 0.8 ×
throughput(1k); worst key wait ≤ 50 ms.  ``--quick``: 1,000 / 5,000 chunks, 1 round.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx  # noqa: E402
from tui_harness import build_app, temp_home  # noqa: E402

from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, usage  # noqa: E402

BODY = {"model": "fake-model", "stream": True, "messages": [{"role": "user", "content": "go"}]}
KEY_EVERY_S = 0.025


async def bare_httpx(url: str) -> float:
    async with httpx.AsyncClient(timeout=60) as client:
        t0 = time.perf_counter()
        async with client.stream("POST", url + "/v1/chat/completions", json=BODY) as r:
            async for _ in r.aiter_lines():
                pass
        return time.perf_counter() - t0


async def tui_turn(url: str, chunks: int, probe_keys: bool) -> dict[str, float]:
    from textual import events

    from milk_tui.tui.widgets.conversation import Conversation
    from milk_tui.tui.widgets.prompt_input import PromptInput

    app = build_app(url)
    out: dict[str, float] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.main_screen
        assert screen is not None
        conv = screen.query_one(Conversation)
        box = screen.query_one(PromptInput)
        done = asyncio.Event()

        marks: dict[str, float] = {}

        def on_event(e) -> None:  # type: ignore[no-untyped-def]
            if e.type == "text_delta" and "first_delta" not in marks:
                marks["first_delta"] = time.perf_counter() - t0
            if e.type in ("turn_completed", "turn_failed"):
                marks["completed"] = time.perf_counter() - t0
                done.set()

        app.runtime.bus.add_listener(on_event)
        waits: list[float] = []
        t0 = time.perf_counter()
        screen.submit_prompt("stream please", force="primary")
        if probe_keys:
            while not done.is_set():
                await asyncio.sleep(KEY_EVERY_S)
                if done.is_set():
                    break
                n = len(box.text)
                sent = time.perf_counter()
                app.post_message(events.Key("x", "x"))
                while len(box.text) == n and time.perf_counter() - sent < 2:
                    await asyncio.sleep(0)
                if len(box.text) > n:
                    waits.append(time.perf_counter() - sent)
        await done.wait()
        app.bridge.flush()
        reply = None
        while True:
            blocks = [b for b in conv.children if b.__class__.__name__ == "ReplyBlock"]
            reply = blocks[-1] if blocks else None
            if reply is not None and reply.rendered_final:  # type: ignore[attr-defined]
                break
            await asyncio.sleep(0.002)
        marks["rendered"] = time.perf_counter() - t0
        await pilot.pause()  # the frame with the final render
        out["total_s"] = time.perf_counter() - t0
        out.update(marks)
        out["chars"] = len(reply.text)  # type: ignore[union-attr]
        out["frames"] = app.bridge.frames
        if waits:
            out["key_worst_ms"] = max(waits) * 1000
            out["key_median_ms"] = statistics.median(waits) * 1000
            out["keys"] = len(waits)
    return out


async def run(sizes: list[int], rounds: int, key_size: int) -> None:
    temp_home()
    with FakeOpenAIServer() as srv:
        results: dict[int, list[dict[str, float]]] = {n: [] for n in sizes}
        bare: dict[int, list[float]] = {n: [] for n in sizes}
        for n in sizes:
            srv.default_reply = FakeReply.bulk(n, usage=usage(10, n))
            await bare_httpx(srv.url)  # warm-up (encodes the reply once)
            for _ in range(rounds):
                bare[n].append(await bare_httpx(srv.url))
                results[n].append(await tui_turn(srv.url, n, probe_keys=False))
        srv.default_reply = FakeReply.bulk(key_size, usage=usage(10, key_size))
        keyed = await tui_turn(srv.url, key_size, probe_keys=True)

    print("TUI stream (headless run_test, 120×40, fake OpenAI SSE on 127.0.0.1)")
    rate: dict[int, float] = {}
    for n in sizes:
        best = min(r["total_s"] for r in results[n])
        med = statistics.median(r["total_s"] for r in results[n])
        b = min(bare[n])
        rate[n] = n / best
        print(
            f"  {n:>6} chunks: TUI best {best:6.3f}s median {med:6.3f}s → {rate[n]:8.0f} chunks/s"
            f" | bare httpx {b:6.3f}s ({n / b:8.0f} chunks/s) | TUI/bare {best / b:5.2f}×"
            f" | frames {int(results[n][0]['frames'])}"
        )
    lo, hi = min(sizes), max(sizes)
    print(f"  sustained render at {hi}: {rate[hi]:.0f} chunks/s (target ≥ 5000)")
    print(
        f"  {hi}-chunk reply fully rendered: {hi / rate[hi]:.2f}s"
        + (" (target ≤ 5 s at 20,000)" if hi >= 20000 else "")
    )
    print(f"  throughput {hi} / {lo}: {rate[hi] / rate[lo]:.2f} (target ≥ 0.8)")
    if "key_worst_ms" in keyed:
        print(
            f"  key wait while streaming {key_size} chunks: worst {keyed['key_worst_ms']:.1f} ms,"
            f" median {keyed['key_median_ms']:.1f} ms over {int(keyed['keys'])} keys (target ≤ 50 ms)"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="1,000 and 5,000 chunks, one round")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    if a.quick:
        asyncio.run(run([1000, 5000], 1, 5000))
    else:
        asyncio.run(run([1000, 20000], a.rounds, 20000))


if __name__ == "__main__":
    main()
