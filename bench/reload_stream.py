"""``/reload`` of a changed config while a reply streams through the real TUI.

Every sample is a fresh interpreter (``--child``) running MilkApp headless (``run_test``,
120×40) on a temp MILK_HOME whose ``config.toml`` points the primary at the parent's fake
OpenAI server.  Two kinds of sample, alternated:

* ``plain`` — one streamed turn;
* ``reload`` — the same turn while the config file is rewritten (the primary's model and
  the theme change) and ``/reload`` is typed every ``RELOAD_EVERY_S`` — the file watch
  sees the same edits.

Per sample: the reply shown in the transcript must equal the streamed text (no chunk
dropped, none doubled), the changed model must be in place once the turn ended (applied
between turns), and the longest slice the event loop was held (a 2 ms ticker, from
``bench/tui_stream.py``) is recorded.  Target: no pause over 50 ms with reloads, and
reload / plain close to 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

RELOAD_EVERY_S = 0.05
CAP_S = 60.0
PIECE = "tok "


def config_text(url: str, model: str, theme: str) -> str:
    return f"""# bench config: a comment that stays
theme = "{theme}"
agent = "fake"
escalation_agent = "demo-claude"

[[agents]]
name = "fake"
provider = "local"
url = "{url}"
model = "{model}"

[[agents]]
name = "demo-claude"
provider = "demo"
model = "demo-large"
"""


async def run(url: str, chunks: int, reload: bool) -> dict[str, Any]:
    from tui_harness import temp_home
    from tui_stream import Probe

    from milk_tui.facade.application import start
    from milk_tui.tui.app import MilkApp
    from milk_tui.tui.ui_state import UIState
    from milk_tui.tui.widgets.conversation import Conversation

    home = Path(temp_home())
    config = home / "config.toml"
    config.write_text(config_text(url, "model-a", "milk-dark"))
    application = start(cwd="/tmp/milk-bench-project", new=True, cooperative=True)
    app = MilkApp(application, ui_state=UIState(theme="milk-dark"))
    probe = Probe()
    reloads = 0
    windows: list[tuple[float, float]] = []
    """(start, end) of each /reload, to find the loop slices it overlapped."""
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await asyncio.sleep(1.0)
        screen = app.main_screen
        conv = screen.query_one(Conversation)
        stop = asyncio.Event()
        tasks = [asyncio.create_task(probe.ticker(stop))]
        t0 = time.perf_counter()
        screen.submit_prompt("stream please", force="primary")
        while not app.facade.busy:
            await asyncio.sleep(0.001)

        async def reloader() -> None:
            nonlocal reloads
            while True:
                await asyncio.sleep(RELOAD_EVERY_S)
                reloads = n = reloads + 1  # counted once written: the file watch applies it too
                text = config_text(url, f"model-{n}", "milk-dark" if n % 2 else "milk-light")
                await asyncio.to_thread(config.write_text, text)
                began = time.perf_counter()
                await screen.run_input("/reload")
                windows.append((began, time.perf_counter()))

        if reload:
            tasks.append(asyncio.create_task(reloader()))
        while app.facade.busy and time.perf_counter() - t0 < CAP_S:
            await asyncio.sleep(0.002)
        tasks[-1].cancel()
        total = time.perf_counter() - t0
        await pilot.pause()
        # The model the file names last (a write the stopped reloader made may not have
        # been reloaded by it: the file watch applies it then).
        expected = re.findall(r'model = "(model-[^"]+)"', config.read_text())[0]
        for _ in range(300):  # the deferred swap lands right after the turn (or the watch's)
            d = app.runtime.dispatcher
            if d.primary and d.primary.config.model == expected:
                break
            await asyncio.sleep(0.01)
        stop.set()
        for t in tasks:
            t.cancel()
        await pilot.pause()
        replies = [it.text for it in conv.items if it.kind == "reply"]
        primary = app.runtime.dispatcher.primary
        out = probe.result(chunks, total, True)
        near = [
            (d, c)
            for t, d, c in probe.slices
            if any(
                a <= t <= b + 0.05 for a, b in windows
            )  # ended while a reload ran, or just after
        ]
        out["reload_slice_ms"] = max((d for d, _ in near), default=0.0) * 1000
        out["reload_slice_cpu_ms"] = max((c for _, c in near), default=0.0) * 1000
        out["reload_ms"] = max((b - a for a, b in windows), default=0.0) * 1000
        out.update(
            reloads=reloads,
            intact=bool(replies) and replies[-1] == PIECE * chunks,
            stored=app.facade.history()[-1].content.strip() == (PIECE * chunks).strip(),
            model=primary.config.model if primary else "",
            got=len(replies[-1]) if replies else -1,
            want=len(PIECE * chunks),
            expected_model=expected,
        )
        return out


def sample(kind: str, url: str, chunks: int) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", kind, "--url", url, "--chunks", str(chunks)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=180, env=dict(os.environ))
    if done.returncode != 0:
        raise SystemExit(f"{kind} sample failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def line(kind: str, rows: list[dict[str, Any]]) -> str:
    med = statistics.median
    out = (
        f"  {kind:<7} total {med(r['total_s'] for r in rows):6.3f} s"
        f" | longest loop pause {max(r['slice_worst_ms'] for r in rows):5.1f} ms"
        f" (median of samples {med(r['slice_worst_ms'] for r in rows):5.1f} ms,"
        f" {sum(r['slices_over_16ms'] for r in rows)} over 16 ms)"
        f" | its CPU {max(r['slice_cpu_worst_ms'] for r in rows):5.1f} ms"
        f" | reply intact {all(r['intact'] and r['stored'] for r in rows)}"
        f" | model applied {all(r['model'] == r['expected_model'] for r in rows)}"
    )
    if kind == "reload":
        out += (
            f"\n          {sum(r['reloads'] for r in rows)} reloads, each ≤"
            f" {max(r['reload_ms'] for r in rows):.0f} ms; longest pause while one ran"
            f" {max(r['reload_slice_ms'] for r in rows):.1f} ms, its CPU"
            f" {max(r['reload_slice_cpu_ms'] for r in rows):.1f} ms"
        )
    return out


def parent(chunks: int, rounds: int) -> None:
    from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, usage

    rows: dict[str, list[dict[str, Any]]] = {"plain": [], "reload": []}
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply.bulk(chunks, piece=PIECE, usage=usage(10, chunks))
        for r in range(rounds):
            for kind in ("plain", "reload") if r % 2 == 0 else ("reload", "plain"):
                rows[kind].append(sample(kind, srv.url, chunks))
    print(f"/reload while a reply streams ({chunks} chunks, {rounds} rounds, 120×40 headless)")
    for kind, got in rows.items():
        print(line(kind, got))
    worst = {k: max(r["slice_worst_ms"] for r in v) for k, v in rows.items()}
    ok = all(r["intact"] and r["stored"] for v in rows.values() for r in v)
    print(
        f"  longest pause reload / plain: {worst['reload'] / max(worst['plain'], 0.001):.2f}×"
        f" (target: reload ≤ 50 ms); no dropped chunk: {ok}"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunks", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="5,000 chunks, one round")
    ap.add_argument("--child", choices=["plain", "reload"])
    ap.add_argument("--url", default="")
    a = ap.parse_args()
    if a.child:
        print(json.dumps(asyncio.run(run(a.url, a.chunks, a.child == "reload"))))
        return
    parent(5000 if a.quick else a.chunks, 1 if a.quick else a.rounds)


if __name__ == "__main__":
    main()
