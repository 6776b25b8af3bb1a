"""The eval's own cost per turn: ``milk-tui eval run`` on a scenario of N turns vs the same N
bare ``milk-tui -p`` turns, both on the same local fake OpenAI server.

The eval runs each turn as a ``milk-tui -p`` subprocess too, so the difference is what the
harness adds: its own start, the scenario load, the folder snapshots and diffs, the
stream-json parse and the record written per turn.  Budget: ≤ 1.10×.  Rounds alternate
(bare, eval); medians of the per-turn time.  ``--quick`` for a short run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, usage  # noqa: E402

MILK = [sys.executable, "-m", "milk_tui.cli"]
BUDGET = 1.10


def config(tmp: Path, url: str) -> Path:
    path = tmp / "config.toml"
    path.write_text(
        f'agent = "b"\n[[agents]]\nname = "b"\nprovider = "local"\nurl = "{url}"\nmodel = "m"\n'
    )
    return path


def bare(tmp: Path, cfg: Path, turns: int) -> float:
    folder, home = tmp / "bare-work", tmp / "bare-home"
    folder.mkdir()
    env = {**os.environ, "MILK_HOME": str(home)}
    start = time.perf_counter()
    for i in range(turns):
        subprocess.run([*MILK, "-p", f"turn {i}: say ok", "--output-format", "stream-json", "--primary",
                        "--allow-tools", "--config", str(cfg)],  # fmt: skip
                       cwd=folder, env=env, check=True, capture_output=True)  # fmt: skip
    return (time.perf_counter() - start) / turns


def evaluated(tmp: Path, cfg: Path, turns: int) -> float:
    scenarios = tmp / "sc"
    scenarios.mkdir()
    lines = ["name: bench", "setup:", "  files:", "    - {path: a.txt, content: hello}", "turns:"]
    lines += [f"  - {{prompt: 'turn {i}: say ok', route: primary}}" for i in range(turns)]
    (scenarios / "bench.yaml").write_text("\n".join(lines) + "\n")
    env = {**os.environ, "MILK_HOME": str(tmp / "eval-home")}
    start = time.perf_counter()
    subprocess.run([*MILK, "eval", "run", "--scenarios", str(scenarios), "--modes", "primary",
                    "--results", str(tmp / "res"), "--config", str(cfg)],  # fmt: skip
                   cwd=tmp, env=env, check=True, capture_output=True)  # fmt: skip
    took = (time.perf_counter() - start) / turns
    done = (tmp / "res" / "turns.jsonl").read_text().count("\n")
    assert done == turns, f"{done} of {turns} turns recorded"
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    turns, rounds = (4, 2) if args.quick else (10, 3)
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["ok"], usage=usage(20, 1))
        b, e = [], []
        for _ in range(rounds):
            with tempfile.TemporaryDirectory() as d:
                cfg = config(Path(d), srv.url)
                b.append(bare(Path(d), cfg, turns))
                e.append(evaluated(Path(d), cfg, turns))
    mb, me = statistics.median(b), statistics.median(e)
    ratio = me / mb
    print(
        f"bare milk-tui -p turn:  {mb * 1000:8.1f} ms  (median of {rounds} rounds × {turns} turns)"
    )
    print(f"eval run turn:          {me * 1000:8.1f} ms")
    print(
        f"ratio eval / bare:      {ratio:8.3f}  (budget ≤ {BUDGET:.2f}) {'OK' if ratio <= BUDGET else 'OVER'}"
    )


if __name__ == "__main__":
    main()
