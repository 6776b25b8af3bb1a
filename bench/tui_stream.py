"""TUI streaming benchmark: milk-tui beside a minimal Textual chat app, in one run.

Every sample is a fresh interpreter (``--child``) talking to the one local fake OpenAI
server of the parent, so no render cache carries over between samples; the apps are
alternated.  The apps:

* ``milk`` — a real turn in MilkApp (headless ``run_test``, 120×40): fake server →
  OpenAI-compatible agent → dispatcher → bus → bridge → conversation;
* ``main`` (with ``--baseline DIR``) — the same, importing milk-tui from ``DIR`` (e.g. the
  main branch's checkout): the before/after of a change, measured side by side;
* ``minimal`` — a minimal Textual chat app: an ``Input`` and a ``Markdown`` widget fed
  through ``Markdown.get_stream`` from the same stream read with httpx.

Per sample, from the prompt until the reply is fully rendered (the final render
included): prompt → first token in the reply widget, total time and chunks/s; a key is
posted every ~25 ms and the time until the input's text changes is recorded (median and
worst); a 2 ms ticker records the longest slice the event loop was held (the watchdog).
Replies: ``tok`` (one long paragraph, the throughput case) and ``md`` (headings,
paragraphs, lists, code fences and tables), at 1,000 and 20,000 chunks.

Targets: key wait median ≤ 15 ms and worst ≤ 50 ms; sustained ≥ 5,000 chunks/s and a
20,000-chunk reply ≤ 5 s; the peak resident set of the app's process (start-up and one
reply) ≤ 100 MiB.  ``--quick``: 1,000 / 5,000 chunks, one round; ``--sizes N …``:
other reply sizes (default 1,000 and 20,000); ``--min-keys N``: milk-tui's samples (and the
baseline's) are repeated until N keys were timed (the key-wait median is over every key).
``--profile N``: one milk sample of N ``md`` chunks under cProfile (the loop's thread).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

BODY = {"model": "fake-model", "stream": True, "messages": [{"role": "user", "content": "go"}]}
KEY_EVERY_S = 0.025
TICK_S = 0.002
SETTLE_S = 1.0
"""Pause between the app being up and the prompt, as a person reads the screen: work an
app defers past its first paint (milk-tui loads the code highlighter) is not counted."""
MINIMAL_CAP_S = float(os.environ.get("MILK_BENCH_CAP_S", "20"))
"""A sample that has not finished by then is reported as not finished."""


# ----- replies -------------------------------------------------------------------------------


def md_pieces(n: int) -> list[str]:
    """A Markdown reply of ``n`` chunks of a few characters, as models stream them."""
    section = (
        "## Section {i}\n\nThe *quick* brown fox jumps over the **lazy** dog; `x = {i}` is "
        "set and [a link](https://example.com/{i}) is cited.\n\n- first item\n- second item "
        "with `code`\n- third\n\n```python\ndef step_{i}(x):\n    return x * {i}  # twice\n"
        "```\n\n| name | value |\n|------|-------|\n| a    | {i}     |\n| b    | 2     |\n\n"
    )
    text, i = "", 0
    while len(text) < n * 4:
        text += section.format(i=i)
        i += 1
    size = len(text) // n
    return [text[k * size : (k + 1) * size] for k in range(n - 1)] + [text[(n - 1) * size :]]


def reply_for(content: str, n: int):  # type: ignore[no-untyped-def]
    from milk_tui.testing.fake_openai import FakeReply, usage

    if content == "tok":
        return FakeReply.bulk(n, usage=usage(10, n))
    return FakeReply(text=md_pieces(n), usage=usage(10, n))


# ----- measuring inside a child ---------------------------------------------------------------


class Probe:
    """Key waits and the loop watchdog, shared by both apps."""

    def __init__(self) -> None:
        self.waits: list[float] = []
        self.key_spans: list[tuple[float, float]] = []
        """(when each measured key was due, when the input showed it): ``loop_stalls.py``"""
        self.slices: list[tuple[float, float, float]] = []
        """(when it ended, how long the loop was held, the loop thread's CPU time in it) for
        each tick: on a loaded machine the wall time includes time the OS ran other
        processes, the CPU time only the work the app did."""
        self.first = 0.0
        self.first_at = 0.0
        self.cpu0 = time.process_time()

    async def ticker(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            t, c = time.perf_counter(), time.thread_time()
            await asyncio.sleep(TICK_S)
            now = time.perf_counter()
            self.slices.append((now, now - t - TICK_S, time.thread_time() - c))

    async def keys(self, app: Any, text_len: Any, clear: Any, stop: asyncio.Event) -> None:
        """Type a key every ``KEY_EVERY_S`` on a fixed clock, as a person does, and time each
        from the moment it was due: a key due while the loop is held waits for the slice to
        end, and that wait counts (timed from when this task got to run, it would not).  The
        input is emptied now and then (unmeasured) so that re-wrapping a growing line of x's
        does not become the cost measured."""
        from textual import events

        due = time.perf_counter()
        while not stop.is_set():
            due += KEY_EVERY_S
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            if stop.is_set():
                return
            n = text_len()
            sent = due  # pressed then; the loop may only now have let this task run
            app.post_message(events.Key("x", "x"))
            while text_len() == n and time.perf_counter() - sent < 2:
                await asyncio.sleep(0)
            if text_len() > n:
                now = time.perf_counter()
                self.waits.append(now - sent)
                self.key_spans.append((sent, now))
            if text_len() >= 40:
                clear()

    async def first_token(self, t0: float, shown: Any) -> None:
        while not shown():
            await asyncio.sleep(0.0005)
        self.first_at = time.perf_counter()
        self.first = self.first_at - t0

    def result(self, chunks: int, total: float, finished: bool) -> dict[str, Any]:
        w = sorted(self.waits) or [0.0]
        before = [d for t, d, _ in self.slices if t <= self.first_at] or [0.0]
        after = [d for t, d, _ in self.slices if t > self.first_at] or [0.0]
        after_cpu = [c for t, _, c in self.slices if t > self.first_at] or [0.0]
        worst_at = max(
            ((c, t) for t, _, c in self.slices if t > self.first_at), default=(0.0, self.first_at)
        )[1]
        return {
            "finished": finished,
            "total_s": total,
            "chunks_per_s": chunks / total if finished else 0.0,
            "first_s": self.first,
            "cpu_s": time.process_time() - self.cpu0,
            "key_median_ms": statistics.median(w) * 1000,
            "key_worst_ms": w[-1] * 1000,
            "keys": len(self.waits),
            "key_waits_ms": [round(x * 1000, 3) for x in self.waits],
            "slice_worst_ms": max(after) * 1000,
            "slices_over_16ms": sum(1 for d in after if d > 0.016),
            "slice_cpu_worst_ms": max(after_cpu) * 1000,
            "slice_cpu_worst_at_s": worst_at - self.first_at,
            "slices_cpu_over_16ms": sum(1 for c in after_cpu if c > 0.016),
            "slice_before_first_ms": max(before) * 1000,
        }


async def run_milk(url: str, chunks: int) -> dict[str, Any]:
    from tui_harness import build_app, temp_home

    from milk_tui.tui.widgets.conversation import Conversation
    from milk_tui.tui.widgets.prompt_input import PromptInput

    temp_home()
    app = build_app(url)
    probe = Probe()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await asyncio.sleep(SETTLE_S)
        screen = app.main_screen
        conv = screen.query_one(Conversation)
        box = screen.query_one(PromptInput)

        def reply():  # type: ignore[no-untyped-def]
            blocks = [
                b for b in conv.children if b.__class__.__name__ == "ReplyBlock" and b.display
            ]
            return blocks[-1] if blocks else None

        def shown() -> bool:
            r = reply()
            return r is not None and len(r._fixed) + len(r._tail) > 1  # header + a line

        def final() -> bool:
            r = reply()
            return r is not None and r.done and r.rendered_final

        stop = asyncio.Event()
        tasks = [asyncio.create_task(probe.ticker(stop))]
        t0 = time.perf_counter()
        probe.cpu0 = time.process_time()
        screen.submit_prompt("stream please", force="primary")
        tasks += [
            asyncio.create_task(probe.first_token(t0, shown)),
            asyncio.create_task(
                probe.keys(app, lambda: len(box.text), lambda: box.set_text(""), stop)
            ),
        ]
        while not final() and time.perf_counter() - t0 < MINIMAL_CAP_S:
            await asyncio.sleep(0.002)
        _stop(stop, tasks)  # first: with keys still typed, the pause below waited 0.1–0.7 s
        await pilot.pause()  # the frame with the final render
        total = time.perf_counter() - t0
        return probe.result(chunks, total, final())


async def run_minimal(url: str, chunks: int) -> dict[str, Any]:
    import httpx
    from textual.app import App, ComposeResult
    from textual.containers import VerticalScroll
    from textual.widgets import Input, Markdown

    class MinimalChat(App[None]):
        def compose(self) -> ComposeResult:
            with VerticalScroll():
                yield Markdown(id="reply")
            yield Input(id="prompt")

        async def ask(self) -> None:
            md = self.query_one(Markdown)
            stream = Markdown.get_stream(md)
            try:
                async with httpx.AsyncClient(timeout=60) as client:
                    async with client.stream("POST", url + "/v1/chat/completions", json=BODY) as r:
                        async for line in r.aiter_lines():
                            if not line.startswith("data: ") or line == "data: [DONE]":
                                continue
                            choices = json.loads(line[6:]).get("choices") or [{}]
                            text = choices[0].get("delta", {}).get("content")
                            if text:
                                await stream.write(text)
            finally:
                await stream.stop()

    app = MinimalChat()
    probe = Probe()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await asyncio.sleep(SETTLE_S)
        box = app.query_one(Input)
        box.focus()
        md = app.query_one(Markdown)
        stop = asyncio.Event()
        tasks = [asyncio.create_task(probe.ticker(stop))]
        t0 = time.perf_counter()
        probe.cpu0 = time.process_time()
        worker = app.run_worker(app.ask(), exit_on_error=False)
        tasks += [
            asyncio.create_task(probe.first_token(t0, lambda: bool(md.source))),
            asyncio.create_task(probe.keys(app, lambda: len(box.value), box.clear, stop)),
        ]
        while not worker.is_finished and time.perf_counter() - t0 < MINIMAL_CAP_S:
            await asyncio.sleep(0.002)
        _stop(stop, tasks)
        await pilot.pause()
        total = time.perf_counter() - t0
        finished = worker.is_finished
        worker.cancel()
        return probe.result(chunks, total, finished)


def _stop(stop: asyncio.Event, tasks: list[asyncio.Task[Any]]) -> None:
    """End the ticker and the typing once the reply is complete: the pause that waits for
    the final frame waits for the app to be idle, and a key typed every few ms kept it busy
    (the 1,000-chunk totals scattered by ±40 % until this came first)."""
    stop.set()
    for t in tasks:
        t.cancel()


def child(app: str, url: str, chunks: int) -> None:
    import resource

    run = run_minimal if app == "minimal" else run_milk
    out = asyncio.run(run(url, chunks))
    # The process's peak resident set: its start-up and this one reply (the fake server runs
    # in the parent).  ru_maxrss is in KiB on Linux.
    out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def profile(chunks: int) -> None:
    """One milk sample of an ``md`` reply under cProfile: where the event loop's thread goes."""
    import cProfile
    import pstats

    from milk_tui.testing.fake_openai import FakeOpenAIServer

    with FakeOpenAIServer() as srv:
        srv.default_reply = reply_for("md", chunks)
        prof = cProfile.Profile()
        prof.enable()
        out = asyncio.run(run_milk(srv.url, chunks))
        prof.disable()
    print(json.dumps(out))
    stats = pstats.Stats(prof)
    stats.sort_stats("cumulative").print_stats(r"milk_tui|rich/markdown|markdown_it", 40)
    stats.sort_stats("tottime").print_stats(25)


# ----- the parent -----------------------------------------------------------------------------


def sample(app: str, url: str, chunks: int, baseline: str) -> dict[str, Any]:
    env = dict(os.environ)
    if app == "main":
        env["PYTHONPATH"] = baseline
    cmd = [sys.executable, __file__, "--child", app, "--url", url, "--chunks", str(chunks)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise SystemExit(f"{app} sample failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def median_of(rows: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def key_median(rows: list[dict[str, Any]]) -> float:
    """The median of every key wait of the samples together: a 1,000-chunk reply lasts
    0.1–0.2 s, a handful of keys, so a median of the samples' medians would be a median of
    two or three figures each."""
    waits = [w for r in rows for w in r.get("key_waits_ms", [])]
    return statistics.median(waits) if waits else median_of(rows, "key_median_ms")


def report(name: str, rows: list[dict[str, Any]]) -> str:
    if not all(r["finished"] for r in rows):
        return f"    {name:<8} did not finish in {MINIMAL_CAP_S:.0f} s"
    return (
        f"    {name:<8} first token {median_of(rows, 'first_s') * 1000:6.0f} ms"
        f" | total {median_of(rows, 'total_s'):6.3f} s {median_of(rows, 'chunks_per_s'):7.0f} chunks/s"
        f" (CPU {median_of(rows, 'cpu_s'):5.2f} s)"
        f" | key wait median {key_median(rows):5.1f} ms"
        f" worst {max(r['key_worst_ms'] for r in rows):5.1f} ms ({sum(r['keys'] for r in rows)} keys)"
        f" | longest loop slice {max(r['slice_worst_ms'] for r in rows):5.1f} ms"
        f" ({sum(r['slices_over_16ms'] for r in rows)} over 16 ms;"
        f" before the first token {max(r['slice_before_first_ms'] for r in rows):3.0f} ms)"
        f" | its CPU {max(r['slice_cpu_worst_ms'] for r in rows):5.1f} ms"
        f" (+{max(rows, key=lambda r: r['slice_cpu_worst_ms']).get('slice_cpu_worst_at_s', 0):.2f} s"
        f" after the first token; median of the samples' worst"
        f" {median_of(rows, 'slice_cpu_worst_ms'):4.1f} ms)"
        f" ({sum(r['slices_cpu_over_16ms'] for r in rows)} over 16 ms)"
        + (
            f" | peak RSS {max(r['peak_rss_mib'] for r in rows):5.1f} MiB"
            if all("peak_rss_mib" in r for r in rows)
            else ""
        )
    )


def parent(
    sizes: list[int], contents: list[str], rounds: int, baseline: str, min_keys: int = 0
) -> None:
    from milk_tui.testing.fake_openai import FakeOpenAIServer

    apps = ["milk"] + (["main"] if baseline else []) + ["minimal"]
    print("TUI stream (headless run_test, 120×40, fake OpenAI SSE on 127.0.0.1; medians)")
    with FakeOpenAIServer() as srv:
        for content in contents:
            for n in sizes:
                srv.default_reply = reply_for(content, n)
                rows: dict[str, list[dict[str, Any]]] = {a: [] for a in apps}
                for r in range(rounds):
                    for a in apps if r % 2 == 0 else list(reversed(apps)):
                        if a == "minimal" and n > 5000 and rows[a]:
                            continue  # one capped sample is enough to show it
                        try:
                            rows[a].append(sample(a, srv.url, n, baseline))
                        except SystemExit as e:
                            if a != "minimal":
                                raise
                            print(f"    (a minimal app's sample failed: {str(e)[-200:]!r})")
                ours = [a for a in apps if a != "minimal"]
                extra = 0  # more rounds of ours until each has typed ``min_keys`` keys
                while extra < 4 * rounds and any(
                    sum(r["keys"] for r in rows[a]) < min_keys for a in ours
                ):
                    for a in ours if extra % 2 else list(reversed(ours)):
                        rows[a].append(sample(a, srv.url, n, baseline))
                    extra += 1
                more = f" (+{extra} of milk-tui's for {min_keys} keys)" if extra else ""
                print(f"  {content} reply, {n} chunks, {rounds} rounds{more}:")
                for a in apps:
                    if rows[a]:
                        print(report(a, rows[a]))
                milk = rows["milk"]
                if n >= 20000:
                    rate, total = median_of(milk, "chunks_per_s"), median_of(milk, "total_s")
                    print(
                        f"    milk sustained {rate:.0f} chunks/s (target ≥ 5000),"
                        f" reply fully rendered in {total:.2f} s (target ≤ 5 s)"
                    )
                if baseline:
                    ratio = median_of(milk, "total_s") / median_of(rows["main"], "total_s")
                    print(f"    milk / main total time: {ratio:.2f}×")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="1,000 and 5,000 chunks, one round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--content", choices=["tok", "md", "both"], default="both")
    ap.add_argument("--baseline", default="", help="a milk-tui checkout to compare with")
    ap.add_argument("--profile", type=int, default=0, metavar="N")
    ap.add_argument("--child", choices=["milk", "main", "minimal"])
    ap.add_argument("--url", default="")
    ap.add_argument("--chunks", type=int, default=1000)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 20000], metavar="N")
    ap.add_argument(
        "--min-keys",
        type=int,
        default=30,
        help="more rounds of milk-tui (up to 4× --rounds) until this many keys were timed",
    )
    a = ap.parse_args()
    if a.child:
        child(a.child, a.url, a.chunks)
        return
    if a.profile:
        profile(a.profile)
        return
    contents = ["tok", "md"] if a.content == "both" else [a.content]
    if a.quick:
        parent([1000, 5000], contents, 1, a.baseline)
    else:
        parent(a.sizes, contents, a.rounds, a.baseline, a.min_keys)


if __name__ == "__main__":
    main()
