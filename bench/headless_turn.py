"""A full headless turn (dispatcher + tag interception + bus + commit) vs bare httpx.

The budget: a headless turn on 20,000 chunks ≤ 1.10× the time bare httpx takes to
read the same stream.  Both run in this process against the same local fake server,
alternating, medians.  ``--quick`` for a short run.  A third case runs the turn with three
secrets known (every chunk then goes through the secret masker of engine/agent_stream.py;
one of them begins like the streamed text, the masker's worst case).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from headless_stream import bare  # noqa: E402

from milk_tui.agents.openai_compat import OpenAICompatAgent  # noqa: E402
from milk_tui.agents.redact import known_secrets  # noqa: E402
from milk_tui.config.settings import AgentConfig, MilkConfig  # noqa: E402
from milk_tui.engine.bus import EventBus  # noqa: E402
from milk_tui.engine.dispatch import AgentSlot, Dispatcher  # noqa: E402
from milk_tui.memory.service import MemoryService  # noqa: E402
from milk_tui.memory.store import PerceptStore  # noqa: E402
from milk_tui.storage.db import Database  # noqa: E402
from milk_tui.storage.sessions import SessionStore  # noqa: E402
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, usage  # noqa: E402

SECRETS = ["sk-bench-0123456789abcdef0123", "tok-refresh-99887766", "hdr-5f4e3d2c1b"]


def headless_dispatcher(tmp: Path, url: str) -> tuple[Dispatcher, EventBus, Database]:
    """The dispatcher a `-p` turn runs on (database in ``tmp``, one OpenAI-compatible
    primary at ``url``, no escalation), its bus and its database (the caller closes it):
    shared by the headless benches."""
    ac = AgentConfig(name="bench", url=url, model="fake-model")
    db = Database(tmp / "milk.db")
    store = SessionStore(db)
    bus = EventBus()
    disp = Dispatcher(
        config=MilkConfig(local_context_budget_chars=4000),
        store=store,
        session=store.create(str(tmp)),
        bus=bus,
        cwd=str(tmp),
        primary=AgentSlot("primary", ac, OpenAICompatAgent(ac)),
        escalation=None,
        memory=MemoryService(PerceptStore(db), bus),
    )
    return disp, bus, db


async def run(chunks: int, rounds: int, tmp: Path) -> dict[str, float]:
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply.bulk(chunks, usage=usage(10, chunks))
        url = srv.url + "/v1/chat/completions"
        disp, bus, db = headless_dispatcher(tmp, srv.url)
        sub = bus.subscribe()  # a live subscriber, drained like a UI would

        n = [0]

        async def turn(_: object, __: str) -> None:
            n[0] += 1  # a new prompt each round, so the repeated-prompt guard stays quiet
            out = await disp.run_turn(f"benchmark prompt number {n[0]}", force="primary")
            assert out.ok, out.error
            sub.get_nowait_all()

        async def turn_with_secrets(_: object, url: str) -> None:
            known_secrets()[:] = SECRETS
            try:
                await turn(_, url)
            finally:
                known_secrets().clear()

        async with httpx.AsyncClient(timeout=60) as client:
            cases = {
                "bare bytes": (bare(httpx.Response.aiter_bytes), client),
                "dispatcher turn": (turn, None),
                "turn, 3 secrets": (turn_with_secrets, None),
            }
            for fn, obj in cases.values():
                await fn(obj, url)
            times: dict[str, list[float]] = {k: [] for k in cases}
            for _ in range(rounds):
                for name, (fn, obj) in cases.items():
                    t0 = time.perf_counter()
                    await fn(obj, url)
                    times[name].append(time.perf_counter() - t0)
        db.close()
    return {k: statistics.median(v) for k, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    chunks, rounds = (2000, 3) if a.quick else (20000, 7)
    with tempfile.TemporaryDirectory() as tmp:
        med = asyncio.run(run(chunks, rounds, Path(tmp)))
    print(f"headless turn: {chunks} chunks, median of {rounds}")
    for name, t in med.items():
        print(f"  {name:<16} {t * 1000:8.1f} ms  {chunks / t:9.0f} chunks/s")
    print(
        f"  ratio dispatcher turn / bare bytes = {med['dispatcher turn'] / med['bare bytes']:.3f}"
        "  (target ≤ 1.10)"
    )
    print(
        "  ratio turn with 3 known secrets / dispatcher turn = "
        f"{med['turn, 3 secrets'] / med['dispatcher turn']:.3f}"
    )


if __name__ == "__main__":
    main()
