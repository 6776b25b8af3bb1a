"""Which loop callbacks make up each long slice of a streamed reply (benchmarks only).

One milk sample of ``bench/tui_stream.py`` (``--content``, ``--chunks``) with every event
loop callback timed (the loop thread's CPU) and, inside each, the CPU of the steps that
matter: the bridge's frame, ``StreamView.append``, the worker's catch-up slices, where
blocks end (markdown-it), block renders, Textual's screen update (reflow, repaint), garbage
collections.  Then, for the ``--top N`` longest ticker slices over 16 ms (the 2 ms ticker of
``tui_stream.py``), the callbacks that ran between its two ticks, with their start and end
(ms from the slice's start) — an event loop lets a timer or a key in only between
iterations, so what adds up is the run of callbacks between two ticks — and per step the
total CPU over the reply.

    PYTHONPATH=. python bench/loop_stalls.py --content md --chunks 20000 --top 6 [--updates N]

``--updates N`` also lists the N costliest screen updates after the first token.
"""

from __future__ import annotations

import argparse
import asyncio
import asyncio.events
import functools
import gc
import json
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import tui_stream  # noqa: E402

Record = tuple[float, float, float, str, dict[str, float]]
"""(start, end, loop-thread CPU ms, callback, CPU ms per step inside it)"""
records: list[Record] = []
_inner: list[dict[str, float]] = []


def _name(handle: asyncio.Handle) -> str:
    cb = handle._callback  # type: ignore[attr-defined]  # benchmarks only: what runs
    owner = getattr(cb, "__self__", None)
    if isinstance(owner, asyncio.Task):
        return "task " + getattr(owner.get_coro(), "__qualname__", "?")
    return getattr(cb, "__qualname__", repr(cb))[:50]


def _add(label: str, ms: float) -> None:
    if _inner and threading.current_thread() is threading.main_thread():
        _inner[-1][label] = _inner[-1].get(label, 0.0) + ms


def _timed(fn: Any, label: str) -> Any:
    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        c0 = time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            _add(label, (time.thread_time() - c0) * 1000)

    return run


def install() -> None:
    run_handle = asyncio.events.Handle._run

    def run(self: asyncio.Handle) -> None:
        s0, c0 = time.perf_counter(), time.thread_time()
        _inner.append({})
        try:
            run_handle(self)
        finally:
            cpu = (time.thread_time() - c0) * 1000
            records.append((s0, time.perf_counter(), cpu, _name(self), _inner.pop()))

    asyncio.events.Handle._run = run  # type: ignore[method-assign]
    from textual._compositor import Compositor
    from textual.screen import Screen

    from milk_tui.tui.bridge import BusBridge
    from milk_tui.tui.widgets import block_queue, block_scan, md_blocks, stream_view, stream_work

    for cls, name, label in [
        (BusBridge, "flush", "bridge frame"),
        (stream_view.StreamView, "append", "append"),
        (stream_view.StreamView, "_show_open", "open block"),
        (Screen, "_on_timer_update", "screen update"),
        (Compositor, "reflow", "reflow"),
        (Compositor, "render_update", "repaint"),
    ]:
        setattr(cls, name, _timed(getattr(cls, name), label))
    stream_work.catch_up = _timed(stream_work.catch_up, "catch-up")
    block_scan.block_spans = _timed(md_blocks.block_spans, "block ends")
    render = _timed(md_blocks.render_block, "block renders")
    stream_view.render_block = block_queue.render_block = render
    started: list[float] = []

    def collection(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started.append(time.thread_time())
        elif started:
            _add(f"gc{info['generation']}", (time.thread_time() - started.pop()) * 1000)

    gc.callbacks.append(collection)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--content", choices=["tok", "md"], default="md")
    ap.add_argument("--chunks", type=int, default=20_000)
    ap.add_argument("--top", type=int, default=6)
    ap.add_argument("--updates", type=int, default=0, help="the N costliest screen updates")
    ap.add_argument("--keys", action="store_true", help="what each typed key waited behind")
    a = ap.parse_args()
    install()
    from milk_tui.testing.fake_openai import FakeOpenAIServer

    kept: list[Any] = []
    result = tui_stream.Probe.result

    def keep(self: Any, *args: Any) -> Any:
        kept.append((list(self.slices), self.first_at, list(self.key_spans)))
        return result(self, *args)

    tui_stream.Probe.result = keep  # type: ignore[method-assign]
    with FakeOpenAIServer() as srv:
        srv.default_reply = tui_stream.reply_for(a.content, a.chunks)
        out = asyncio.run(tui_stream.run_milk(srv.url, a.chunks))
    print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in out.items()}))
    slices, first, key_spans = kept[0]
    long = sorted(((c, t, d) for t, d, c in slices if t > first and c > 0.016), reverse=True)
    print(f"{len(long)} ticker slices over 16 ms of loop-thread CPU after the first token")
    for cpu, end, wall in long[: a.top]:
        start = end - wall - tui_stream.TICK_S
        print(f"-- {cpu * 1000:.1f} ms CPU ({wall * 1000:.1f} wall) at +{end - first:.3f} s")
        for s0, s1, ms, name, inner in records:
            if start < s1 <= end and ms > 0.3:
                steps = ", ".join(f"{k} {v:.1f}" for k, v in inner.items())
                print(
                    f"   {(s0 - start) * 1000:6.1f}..{(s1 - start) * 1000:6.1f} {ms:6.2f} {name}  {steps}"
                )
    if a.updates:
        updates = sorted(
            (inner["screen update"], s0, inner)
            for s0, _, _, _, inner in records
            if s0 > first and "screen update" in inner
        )[::-1]
        print(f"the {a.updates} costliest screen updates after the first token (CPU ms):")
        for ms, s0, inner in updates[: a.updates]:
            steps = ", ".join(f"{k} {v:.1f}" for k, v in inner.items() if k != "screen update")
            print(f"   {ms:6.2f} at +{s0 - first:.3f} s  {steps}")
    if a.keys:
        key_waits(key_spans, first)
    totals: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for *_, inner in records:
        for k, v in inner.items():
            t = totals[k]
            t[0], t[1], t[2] = t[0] + 1, t[1] + v, max(t[2], v)
    print("per step over the reply (in how many callbacks, total CPU, the most in one):")
    for k, (n, total, most) in sorted(totals.items(), key=lambda kv: -kv[1][1]):
        print(f"   {k:14} {int(n):5} {total:8.1f} ms {most:6.1f} ms")


def key_waits(spans: list[tuple[float, float]], first: float) -> None:
    """Per typed key after the first token, the callbacks that ran between when it was due
    and when the input showed it, summed by callback (and by step inside them): what a key
    waits behind.  A key's own path (the app's queue, the screen, the input) is in there too."""
    waits = sorted(s1 - s0 for s0, s1 in spans if s0 > first)
    if not waits:
        return
    print(
        f"{len(waits)} keys after the first token: median {waits[len(waits) // 2] * 1000:.1f} ms,"
        f" worst {waits[-1] * 1000:.1f} ms"
    )
    by_name: dict[str, float] = defaultdict(float)
    by_step: dict[str, float] = defaultdict(float)
    calls = 0
    for k0, k1 in spans:
        if k0 <= first:
            continue
        for s0, s1, ms, name, inner in records:
            if s1 > k0 and s0 < k1:  # ran (partly) while the key waited
                part = (min(s1, k1) - max(s0, k0)) / max(s1 - s0, 1e-9)
                by_name[name] += ms * part
                calls += 1
                for k, v in inner.items():
                    by_step[k] += v * part
    n = len(waits)
    print(f"what a key waited behind, CPU ms per key ({calls / n:.1f} callbacks per key):")
    for name, ms in sorted(by_name.items(), key=lambda kv: -kv[1])[:14]:
        print(f"   {ms / n:7.2f}  {name}")
    print("   of which, by step:")
    for k, ms in sorted(by_step.items(), key=lambda kv: -kv[1])[:10]:
        print(f"   {ms / n:7.2f}  {k}")


if __name__ == "__main__":
    main()
