"""Each command on a large store ÷ the same command on an empty store, in one run.

    python bench/scale_commands.py [--facts N --turns N --sessions N] [--rounds R]

The large store is made by ``bench/big_store.py`` (cached under ``$TMPDIR/milk-big-*``); the
empty one is a fresh ``MILK_HOME`` with one session in the same folder.  Each command runs
as the user runs it, a fresh ``milk-tui`` process (``python -m milk_tui.cli``), alternating
empty and large, medians of R rounds: a headless ``-p`` turn against a local fake OpenAI
server, ``memory list``, ``memory list --search`` (two words each in ~20 % of the facts, and a
rare reference), ``sessions list`` and
``sessions list --all``.  Printed with each wall time: the command's CPU time (all its
threads), which the other work on a shared host changes less.  The budget
(docs/performance.md, "Scale"): each ratio ≤ 1.10.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from big_store import BIG_CWD, build, fresh_copy  # noqa: E402

from milk_tui.testing.fake_openai import FakeOpenAIServer  # noqa: E402

COMMANDS: dict[str, list[str]] = {
    "headless turn": ["-p", "hello there"],
    "memory list": ["memory", "list", "--scope", "all", "--limit", "50"],
    "memory search": ["memory", "list", "--scope", "all", "--search", "kafka router"],
    "memory search (rare)": ["memory", "list", "--scope", "all", "--search", "123456"],
    "sessions list": ["sessions", "list"],
    "sessions list --all": ["sessions", "list", "--all"],
}


def _config(home: Path, url: str) -> None:
    (home / "config.toml").write_text(
        f'agent = "bench"\nescalation_agent = "big"\n'
        f'[[agents]]\nname = "bench"\nprovider = "local"\nurl = "{url}"\nmodel = "fake"\n'
        f'[[agents]]\nname = "big"\nprovider = "local"\nurl = "{url}"\nmodel = "fake"\n'
    )


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run_once(home: Path, args: list[str], cpu: list[float] | None = None) -> float:
    """The command's wall time; its CPU time (every thread's, user and system: what a
    loaded host's other work does not change much) is added to ``cpu``."""
    env = {**os.environ, "MILK_HOME": str(home), "NO_COLOR": "1"}
    c0 = _cpu()
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "milk_tui.cli", *args],
        cwd=BIG_CWD,
        env=env,
        capture_output=True,
        timeout=600,
    )
    took = time.perf_counter() - t0
    if cpu is not None:
        cpu.append(_cpu() - c0)
    if done.returncode != 0:
        raise SystemExit(f"{args} in {home} failed: {done.stderr.decode()[-500:]}")
    return took


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--facts", type=int, default=1_000_000)
    ap.add_argument("--turns", type=int, default=100_000)
    ap.add_argument("--sessions", type=int, default=1_000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--only", default="", help="run only the commands whose name has this")
    ap.add_argument("--home", type=Path, help="where the large store is built or reused")
    a = ap.parse_args()
    tmp = Path(tempfile.gettempdir())
    home = a.home or tmp / f"milk-big-{a.facts}-{a.turns}-{a.sessions}"
    cached = build(home, a.facts, a.turns, a.sessions)
    Path(BIG_CWD).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as t, FakeOpenAIServer() as server:
        big = fresh_copy(cached, Path(t) / "big")
        empty = build(Path(t) / "empty", 0, 2, 1, quiet=True)
        for home in (big, empty):
            _config(home, server.url)
        print(
            f"store: {a.facts:,} facts, a {a.turns:,}-turn session, {a.sessions:,} sessions; "
            f"{a.rounds} rounds, medians"
        )
        print(
            f"{'command':<22}{'empty s':>10}{'large s':>10}{'ratio':>8}"
            f"{'cpu empty':>11}{'cpu large':>11}{'ratio':>8}"
        )
        for name, args in COMMANDS.items():
            if a.only not in name:
                continue
            run_once(big, args)  # warm the page cache for both, untimed
            run_once(empty, args)
            e, b, ce, cb = [], [], [], []
            for _ in range(a.rounds):
                e.append(run_once(empty, args, ce))
                b.append(run_once(big, args, cb))
            me, mb = statistics.median(e), statistics.median(b)
            mce, mcb = statistics.median(ce), statistics.median(cb)
            print(
                f"{name:<22}{me:>10.3f}{mb:>10.3f}{mb / me:>8.2f}"
                f"{mce:>11.3f}{mcb:>11.3f}{mcb / mce:>8.2f}"
            )
        print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
