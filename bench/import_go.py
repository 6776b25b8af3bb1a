"""Importing a large Go milk install: ``milk-tui import-go`` as a user runs it, timed, next to
the same command on a 1,000-fact install in the same run (budget: 1,000,000 facts ≤ 30 s).

    python bench/import_go.py [--facts N] [--keep DIR]

The install is made by ``milk_tui/testing/go_install.py`` (cached in ``--keep``); the
import runs as a fresh process into a fresh ``MILK_HOME``, then once more into the same
home (nothing new: every fact is already there).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from milk_tui.testing.go_install import make_go_install  # noqa: E402


def install(root: Path, facts: int) -> Path:
    stamp = root / "bench.json"
    if stamp.exists() and json.loads(stamp.read_text()) == {"facts": facts}:
        return root
    t0 = time.perf_counter()
    make_go_install(root, facts, sessions=100, session_facts=10)
    stamp.write_text(json.dumps({"facts": facts}))
    print(f"made a {facts:,}-fact Go install in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return root


def run(home: Path, root: Path) -> tuple[float, str]:
    env = {**os.environ, "MILK_HOME": str(home), "NO_COLOR": "1"}
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "milk_tui.cli", "import-go", str(root)],
                          env=env, capture_output=True, text=True, timeout=900)  # fmt: skip
    took = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"import failed: {done.stderr[-500:]}")
    return took, done.stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--facts", type=int, default=1_000_000)
    ap.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()) / "milk-go-install")
    a = ap.parse_args()
    big = install(a.keep / str(a.facts), a.facts)
    with tempfile.TemporaryDirectory() as t:
        small = install(Path(t) / "small", 1_000)
        base, _ = run(Path(t) / "home-small", small)
        took, summary = run(Path(t) / "home-big", big)
        again, again_summary = run(Path(t) / "home-big", big)
    print(f"1,000-fact install       {base:7.2f} s")
    print(f"{a.facts:,}-fact install  {took:7.2f} s   ({took / base:.1f}x the small one; "
          f"budget 30 s: {'PASS' if took <= 30 else 'FAIL'})")  # fmt: skip
    print(f"  {summary}")
    print(f"second import (nothing new) {again:7.2f} s")
    print(f"  {again_summary}")


if __name__ == "__main__":
    main()
