"""Prompt → first token on screen: milk-tui vs a minimal Textual chat app, same run.

Both apps run headless (``run_test``, 120×40) against one local fake OpenAI server (real
SSE over loopback) and answer the same prompt with the same reply.  For each sample the
prompt text is put in the app's input and an Enter key is posted; the clock then records

* ``wire``  — when the server has the chat request (the request is on the wire);
* ``first`` — when the first frame with the first reply token on screen is painted (the
  reply widget laid out with text, inside the view, as the frame goes to the terminal).

The minimal app is what a Textual chat app does with no engine at all: an ``Input``; on
submit it mounts a ``Markdown`` and streams the reply into it with ``MarkdownStream`` over
one ``httpx.AsyncClient`` made at mount.  milk-tui runs its whole path (prompt box → facade
→ router → memory selection → request building → OpenAI-compatible agent → bus → bridge →
conversation) with a 10,000-fact memory and a 2,000-turn session to resume, so the work
before the request is not trivially small.  Rounds alternate the two apps; medians and the
ratio are printed.

    python bench/first_token.py [--rounds N] [--chunks N] [--profile] [--trace N]
                                [--baseline DIR] [--server-wait S]

``--profile`` runs one more milk-tui sample under cProfile and prints the functions that
ran on the event loop between Enter and the first token (cumulative).  ``--trace N`` runs N
more milk-tui samples with wall-clock marks (``bench/frame_trace.py``): request built, on
the wire, each bridge frame, screen layout and repaint, frame to the terminal.

``--server-wait S``: a server slow to start, as a real one is: it sends its headers, then
waits ``S`` seconds before each of three short chunks (the first token arrives ``S`` after
the request, alone), instead of sending a ``--chunks`` reply at once.

``--baseline DIR`` adds a third app, milk-tui imported from another checkout (e.g. main)
through ``PYTHONPATH``; then every sample runs in a fresh interpreter (each with its own
fake server and one warm-up sample first), the three apps alternated round by round.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

CWD = "/tmp/milk-bench-first-token"
PROMPTS = (
    "how does the session store keep its turns in order?",
    "what does the facts pane show for a pinned fact?",
    "where is the config file of a new home written?",
    "which key opens the sessions list in this app?",
    "list the agents this folder has configured",
    "what is the default model of the local server?",
)
"""Routed to the primary by the rules (a difficulty signal such as "race" would send it to the
escalation agent, which is not the server measured here), and each unlike the one before: a
prompt close to the previous one is taken for the same question asked again, which teaches
the router (engine/router_learning.py) — not the path measured: tests/test_bench_imports.py."""
POLL_S = 0.001
_samples = iter(range(1_000_000))
SERVER_WAIT_S = [0.0]


def reply(chunks: int):  # type: ignore[no-untyped-def]
    from milk_tui.testing.fake_openai import FakeReply, usage

    if SERVER_WAIT_S[0] > 0:
        return FakeReply(text=["tok "] * 3, delay=SERVER_WAIT_S[0], usage=usage(10, 3))
    return FakeReply.bulk(chunks, usage=usage(10, chunks))


def prompt() -> str:
    """A new prompt each sample, in every process: a repeated one would be escalated
    (engine/repeat_guard.py)."""
    n = next(_samples)
    return f"{PROMPTS[n % len(PROMPTS)]} (case {os.getpid()}.{n})"


def seed_home(turns: int, facts: int) -> None:
    """A MILK_HOME with a ``turns``-turn session in ``CWD`` and ``facts`` remembered facts."""
    os.environ["MILK_HOME"] = tempfile.mkdtemp(prefix="milk-first-token-")
    os.environ["MILK_DEMO_PACE"] = "0"
    os.makedirs(CWD, exist_ok=True)
    import tui_resume

    tui_resume.CWD = CWD
    tui_resume.make_session(turns)
    from milk_tui.config.paths import database_file
    from milk_tui.memory.store import PerceptStore
    from milk_tui.model.percept import Percept
    from milk_tui.storage.db import Database

    db = Database(database_file())
    store = PerceptStore(db)
    words = "session store turns writers race ordered sqlite lock commit index".split()
    now = time.time()
    with db.transaction() as conn:
        for i in range(facts):
            text = f"fact {i}: the {words[i % 10]} of part {i} uses {words[(i * 7) % 10]}"
            store.insert(conn, Percept(0, text, "primary", "all", "global", False, 0.7, now, now))
    db.close()


async def _until(check: Callable[[], bool]) -> None:
    while not check():
        await asyncio.sleep(POLL_S)


def _on_first_paint(app, shown: Callable[[], bool], t0: list[float], out: dict[str, float]):  # type: ignore[no-untyped-def]
    """Records in ``out["first"]`` when the first frame is handed to the terminal with the
    first token on screen (``shown()`` true as it is painted).  Polling for the token and
    then waiting for the next refresh would count a whole extra frame when the token is
    painted in the same loop iteration it arrives in."""
    display = app._display

    def watched(screen, update):  # type: ignore[no-untyped-def]
        display(screen, update)
        if "first" not in out and shown():
            out["first"] = time.perf_counter() - t0[0]

    app._display = watched


async def measure(
    app, enter: Callable[[], None], shown: Callable[[], bool], srv
) -> dict[str, float]:  # type: ignore[no-untyped-def]
    n = len(srv.chat_requests)
    out: dict[str, float] = {}
    t0 = [time.perf_counter()]
    _on_first_paint(app, shown, t0, out)
    enter()

    async def wire() -> None:
        await _until(lambda: len(srv.chat_requests) > n)
        out["wire"] = time.perf_counter() - t0[0]

    w = asyncio.create_task(wire())
    await _until(lambda: "first" in out)
    await w
    return out


def _enter_key(app) -> None:  # type: ignore[no-untyped-def]
    from textual import events

    app.post_message(events.Key("enter", None))


async def milk_sample(  # type: ignore[no-untyped-def]
    url: str, srv, profile: cProfile.Profile | None = None, trace: bool = False
) -> dict[str, float]:
    from tui_harness import fake_config

    from milk_tui.facade.application import start
    from milk_tui.tui.app import MilkApp
    from milk_tui.tui.ui_state import UIState
    from milk_tui.tui.widgets.conversation import Conversation
    from milk_tui.tui.widgets.prompt_input import PromptInput
    from milk_tui.tui.widgets.reply_block import ReplyBlock

    application = start(cwd=CWD, config=fake_config(url), cooperative=True)
    app = MilkApp(application, ui_state=UIState(theme="milk-dark"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await asyncio.sleep(0.3)  # launch-time work settles (as a person reads the screen)
        screen = app.main_screen
        assert screen is not None
        conv = screen.query_one(Conversation)
        box = screen.query_one(PromptInput)
        box.set_text(prompt())
        await pilot.pause()
        before = {r for r in conv.query(ReplyBlock) if r.text}  # not an empty spare

        def shown() -> bool:
            """A new reply has a rendered line below its header, inside the view."""
            bottom = conv.region.bottom
            return any(
                r.text and r.region.height > 1 and r.region.y + 1 < bottom
                for r in conv.query(ReplyBlock)
                if r not in before
            )

        if profile is not None:
            profile.enable()
        if trace:
            import frame_trace

            frame_trace.install(srv)
            frame_trace.start()
        out = await measure(app, lambda: _enter_key(app), shown, srv)
        if profile is not None:
            profile.disable()
        if trace:
            frame_trace.mark("first token painted (bench)")
            print(frame_trace.report())
            frame_trace.stop()
            srv.responder = None
        await _until(lambda: not application.busy)
        await pilot.pause()
    application.close_database()
    return out


async def mini_sample(url: str, srv) -> dict[str, float]:  # type: ignore[no-untyped-def]
    import httpx
    from textual.app import App, ComposeResult
    from textual.containers import VerticalScroll
    from textual.widgets import Input, Markdown

    body = {"model": "fake-model", "stream": True, "messages": []}

    class Mini(App[None]):
        AUTO_FOCUS = "#prompt"

        def compose(self) -> ComposeResult:
            yield VerticalScroll(id="conversation")
            yield Input(id="prompt")

        def on_mount(self) -> None:
            self.client = httpx.AsyncClient(timeout=60)
            self.reply: Markdown | None = None

        async def on_input_submitted(self, event: Input.Submitted) -> None:
            md = Markdown("")
            await self.query_one("#conversation").mount(md)
            self.reply = md
            event.input.value = ""
            self.run_worker(self.answer(md, event.value))

        async def answer(self, md: Markdown, prompt: str) -> None:
            stream = Markdown.get_stream(md)
            req = {**body, "messages": [{"role": "user", "content": prompt}]}
            async with self.client.stream("POST", url + "/v1/chat/completions", json=req) as r:
                async for line in r.aiter_lines():
                    if not line.startswith("data: ") or line == "data: [DONE]":
                        continue
                    choices = json.loads(line[6:]).get("choices") or [{}]
                    text = choices[0].get("delta", {}).get("content")
                    if text:
                        await stream.write(text)
            await stream.stop()

    app = Mini()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await asyncio.sleep(0.3)
        app.query_one(Input).value = prompt()
        await pilot.pause()

        def shown() -> bool:
            """The reply has a laid-out block, inside the view."""
            md = app.reply
            if md is None or not md.source:
                return False
            bottom = app.query_one("#conversation").region.bottom
            return any(b.region.height > 0 and b.region.y < bottom for b in md.children)

        out = await measure(app, lambda: _enter_key(app), shown, srv)
        await app.workers.wait_for_complete()
        await app.client.aclose()
    return out


async def run(rounds: int, chunks: int, profile: bool, trace: int = 0) -> None:
    from milk_tui.testing.fake_openai import FakeOpenAIServer

    with FakeOpenAIServer() as srv:
        srv.default_reply = reply(chunks)
        await mini_sample(srv.url, srv)  # warm-up: imports, CSS, first renders
        await milk_sample(srv.url, srv)
        milk: list[dict[str, float]] = []
        mini: list[dict[str, float]] = []
        for _ in range(rounds):
            mini.append(await mini_sample(srv.url, srv))
            milk.append(await milk_sample(srv.url, srv))
        prof = cProfile.Profile() if profile else None
        if prof is not None:
            await milk_sample(srv.url, srv, prof)
        for i in range(trace):
            print(f"traced milk-tui sample {i + 1} (ms since Enter):")
            await milk_sample(srv.url, srv, trace=True)

    def med(xs: list[dict[str, float]], k: str) -> float:
        return statistics.median(x[k] for x in xs) * 1000

    print(
        f"prompt → first token on screen (headless 120×40, {chunks}-chunk reply), {rounds} rounds"
    )
    print(
        f"  minimal Textual app (httpx + MarkdownStream): request sent {med(mini, 'wire'):6.1f} ms,"
        f" first token painted {med(mini, 'first'):6.1f} ms (min {min(x['first'] for x in mini) * 1000:.1f})"
    )
    print(
        f"  milk-tui (2,000-turn session, 2,000 facts)   : request sent {med(milk, 'wire'):6.1f} ms,"
        f" first token painted {med(milk, 'first'):6.1f} ms (min {min(x['first'] for x in milk) * 1000:.1f})"
    )
    print(
        f"  milk-tui / minimal app: {med(milk, 'first') / med(mini, 'first'):.2f}× (target ≤ 1.0)"
    )
    if prof is not None:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(40)


async def child(app: str, chunks: int) -> dict[str, float]:
    """One warm-up and one measured sample of ``app`` in this interpreter."""
    from milk_tui.testing.fake_openai import FakeOpenAIServer

    sample = mini_sample if app == "minimal" else milk_sample
    with FakeOpenAIServer() as srv:
        srv.default_reply = reply(chunks)
        await sample(srv.url, srv)
        return await sample(srv.url, srv)


def compare(rounds: int, chunks: int, baseline: str) -> None:
    """The three apps, each sample a fresh interpreter, alternated round by round."""
    apps = ["minimal", "milk", "main"]
    rows: dict[str, list[dict[str, float]]] = {a: [] for a in apps}
    for r in range(rounds):
        for app in apps if r % 2 == 0 else list(reversed(apps)):
            env = dict(os.environ)
            if app == "main":
                env["PYTHONPATH"] = baseline
            cmd = [sys.executable, __file__, "--child", app, "--chunks", str(chunks)]
            cmd += ["--server-wait", str(SERVER_WAIT_S[0])]
            done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
            if done.returncode != 0:
                raise SystemExit(f"{app} sample failed:\n{done.stderr[-2000:]}")
            rows[app].append(json.loads(done.stdout.strip().splitlines()[-1]))

    def med(app: str, k: str) -> float:
        return statistics.median(x[k] for x in rows[app]) * 1000

    print(
        f"prompt → first token on screen (headless 120×40, {chunks}-chunk reply), {rounds} rounds"
    )
    for app in apps:
        firsts = " ".join(f"{x['first'] * 1000:.0f}" for x in rows[app])
        print(
            f"  {app:<8} request sent {med(app, 'wire'):6.1f} ms, first token painted"
            f" {med(app, 'first'):6.1f} ms (min {min(x['first'] for x in rows[app]) * 1000:.1f};"
            f" each: {firsts})"
        )
    print(
        f"  milk / minimal {med('milk', 'first') / med('minimal', 'first'):.2f}× (target ≤ 1.0),"
        f" main / minimal {med('main', 'first') / med('minimal', 'first'):.2f}×,"
        f" milk / main {med('milk', 'first') / med('main', 'first'):.2f}×"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--chunks", type=int, default=1000)
    ap.add_argument("--turns", type=int, default=2000)
    ap.add_argument("--facts", type=int, default=2000)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--trace", type=int, default=0, metavar="N", help="N traced milk samples")
    ap.add_argument("--baseline", default="", help="a milk-tui checkout to compare with")
    ap.add_argument("--server-wait", type=float, default=0.0, metavar="S")
    ap.add_argument("--child", choices=["minimal", "milk", "main"], help=argparse.SUPPRESS)
    a = ap.parse_args()
    SERVER_WAIT_S[0] = a.server_wait
    if a.child:
        print(json.dumps(asyncio.run(child(a.child, a.chunks))))
        return
    seed_home(a.turns, a.facts)
    if a.baseline:
        compare(a.rounds, a.chunks, a.baseline)
        return
    asyncio.run(run(a.rounds, a.chunks, a.profile, a.trace))


if __name__ == "__main__":
    main()
