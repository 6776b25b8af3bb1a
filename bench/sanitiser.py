"""The sanitiser's cost on a 20,000-chunk reply, as a fraction of the headless turn.

A headless turn (dispatcher + tag interception + bus + commit, against the local fake
server) with a print-mode listener writing each text delta to a sink: once through the
CLI's inert writer (milk_tui/cli/terminal_out.py), once raw.  Rounds alternate; medians.
Also the sanitiser alone over the same chunks (clean, and every chunk holding an escape
sequence: the slow path) and the TUI bridge's per-frame ``inert_copy``.  Target: ≤ 3 %.
``--quick`` for a short run; ``--hostile``: the served reply itself is the slow path.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from headless_turn import headless_dispatcher  # noqa: E402

from milk_tui.cli.terminal_out import inert_out  # noqa: E402
from milk_tui.model import events as ev  # noqa: E402
from milk_tui.model.terminal_text import inert, inert_copy  # noqa: E402
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, usage  # noqa: E402


async def turns(chunks: int, rounds: int, tmp: Path, piece: str) -> dict[str, float]:
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply.bulk(chunks, piece, usage=usage(10, chunks))
        disp, bus, db = headless_dispatcher(tmp, srv.url)
        sink = io.StringIO()
        outs = {"raw print": sink, "inert print": inert_out(sink)}
        current = [sink]

        def on_event(e: ev.BusEvent) -> None:  # what `-p` text output does per delta
            if isinstance(e, ev.TextDelta):
                current[0].write(e.text)

        bus.add_listener(on_event)
        n = [0]

        async def turn(out: io.StringIO) -> None:
            current[0] = out
            n[0] += 1
            sink.seek(0)
            sink.truncate()
            r = await disp.run_turn(f"benchmark prompt number {n[0]}", force="primary")
            assert r.ok, r.error

        for out in outs.values():
            await turn(out)  # warm up
        times: dict[str, list[float]] = {k: [] for k in outs}
        for _ in range(rounds):
            for name, out in outs.items():
                t0 = time.perf_counter()
                await turn(out)
                times[name].append(time.perf_counter() - t0)
        db.close()
    return {k: statistics.median(v) for k, v in times.items()}


def alone(fn: Callable[[str], object], pieces: list[str], rounds: int) -> float:
    best = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for p in pieces:
            fn(p)
        best.append(time.perf_counter() - t0)
    return statistics.median(best)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument(
        "--hostile", action="store_true", help="every chunk of the reply holds an OSC 52"
    )
    a = ap.parse_args()
    chunks, rounds = (2000, 3) if a.quick else (20000, 9)
    clean = ["tok "] * chunks
    hostile = ["t\x1b]52;c;eA==\x07 "] * chunks
    with tempfile.TemporaryDirectory() as tmp:
        med = asyncio.run(turns(chunks, rounds, Path(tmp), (hostile if a.hostile else clean)[0]))
    frames = [ev.fast_delta(ev.TextDelta, "primary", "tok " * 50, "s")] * (chunks // 50)
    t_clean = alone(inert, clean, rounds)
    t_hostile = alone(inert, hostile, rounds)
    t_frames = alone(inert_copy, frames, rounds)  # type: ignore[arg-type]
    raw, safe = med["raw print"], med["inert print"]
    kind = "every chunk holding an OSC 52" if a.hostile else "plain text"
    print(f"sanitiser: {chunks} chunks of {kind}, medians of {rounds} (rounds alternate)")
    print(f"  headless turn, raw print      {raw * 1000:8.1f} ms")
    print(f"  headless turn, inert print    {safe * 1000:8.1f} ms")
    print(f"  difference / turn             {(safe - raw) / raw * 100:+8.2f} %  (target ≤ 3 %)")
    for label, t in (
        ("inert() alone, clean chunks", t_clean),
        ("inert() alone, every chunk ESC", t_hostile),
        ("bridge inert_copy, 50-chunk frames", t_frames),
    ):
        print(f"  {label:<34} {t * 1000:7.2f} ms = {t / raw * 100:5.2f} % of the turn")


if __name__ == "__main__":
    main()
