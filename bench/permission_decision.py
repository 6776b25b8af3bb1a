"""The permission decision's cost per tool call, path resolution included.  Target ≤ 0.5 ms.

What the tool loop does before each call (agents/tool_permission.py): resolve every path
argument and describe the call (``question_for``), then the engine's broker decides it
(``PermissionBroker.ask``: the folder's grant file read, the path-first policy, the
``PermissionDecided`` event on the bus).  Run headless (``-p``) against a real grant file in
a real folder ten levels deep, with a symlinked sub-folder; each case is one kind of call:
a free read, a granted write, an outside write (denied, path named), a move with two paths,
a ``bash`` command under a prefix grant.  The in-run baseline is a bare ``Path.resolve()``
of the same paths; the ratio says how much the decision adds to resolving alone.

    python bench/permission_decision.py            # 20,000 calls a case
    python bench/permission_decision.py --quick    # 2,000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from headless_turn import headless_dispatcher  # noqa: E402

from milk_tui.agents.base import ToolSpec  # noqa: E402
from milk_tui.agents.round_backend import ToolCall  # noqa: E402
from milk_tui.agents.tool_permission import question_for  # noqa: E402
from milk_tui.agents.tools.specs import SPECS  # noqa: E402
from milk_tui.storage.permission_grants import GrantStore  # noqa: E402

TARGET_MS = 0.5
ROUNDS = 5
"""Each case is timed in this many rounds; the median round counts."""


def cases(proj: Path) -> list[tuple[str, ToolSpec, dict[str, str], list[str]]]:
    """(label, tool, arguments, the path arguments a bare resolve gets)."""
    return [
        ("read inside (free)", SPECS["read_file"], {"path": "src/app/main.py"}, ["src/app/main.py"]),
        ("write inside (grant)", SPECS["write_file"], {"path": "src/new.py", "content": "x"}, ["src/new.py"]),
        ("write ../ (denied)", SPECS["write_file"], {"path": "../x.txt", "content": "x"}, ["../x.txt"]),
        ("write via symlink (denied)", SPECS["write_file"], {"path": "link/y.txt", "content": "x"}, ["link/y.txt"]),
        ("move two paths (grant)", SPECS["move_file"], {"source": "src/a.py", "destination": "src/b/a.py"}, ["src/a.py", "src/b/a.py"]),
        ("bash prefix (grant)", SPECS["bash"], {"command": "git status -s"}, []),
    ]  # fmt: skip


async def measure(proj: Path, n: int) -> list[tuple[str, float, float]]:
    disp, _bus, db = headless_dispatcher(proj, "http://127.0.0.1:9")
    disp.state.permission_policy = "deny"  # headless: decided, never asked
    broker = disp.permissions
    broker.grants.grant(str(proj), ["write_file", "move_file", "bash:git status"])
    rows = []
    try:
        for label, spec, args, raw_paths in cases(proj):
            call = ToolCall("c", spec.name, json.dumps(args))
            first = await broker.ask(question_for("bench", proj, spec, call)[0])
            expect_allowed = "denied" not in label
            assert first.allow == expect_allowed, (label, first)
            decided, resolved = [], []
            for _ in range(ROUNDS):
                t0 = time.perf_counter()
                for _ in range(n):
                    await broker.ask(question_for("bench", proj, spec, call)[0])
                decided.append((time.perf_counter() - t0) / n)
                t0 = time.perf_counter()
                for _ in range(n):
                    for p in raw_paths:
                        (proj / p).resolve()
                resolved.append((time.perf_counter() - t0) / n)
            base = statistics.median(resolved) if raw_paths else 0.0  # no path: no baseline
            rows.append((label, statistics.median(decided), base))
    finally:
        db.close()
    return rows


def layout(tmp: Path) -> Path:
    deep = tmp.joinpath(*[f"level{i}" for i in range(10)])
    proj = deep / "proj"
    (proj / "src" / "app").mkdir(parents=True)
    (proj / "src" / "app" / "main.py").write_text("print('hi')\n")
    (proj / "src" / "a.py").write_text("a\n")
    (tmp / "elsewhere").mkdir()
    (proj / "link").symlink_to(tmp / "elsewhere")
    return proj


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="2,000 calls a case")
    n = 2_000 if ap.parse_args().quick else 20_000
    with tempfile.TemporaryDirectory() as d:
        os.environ["MILK_HOME"] = str(Path(d) / "home")
        GrantStore(Path(d) / "home" / "permissions")  # made on the first grant
        proj = layout(Path(d).resolve())
        rows = asyncio.run(measure(proj, n))
    print(f"permission decision per tool call ({n} calls a case, median of {ROUNDS} rounds)")
    print(f"{'case':<28} {'decision':>10} {'resolve()':>10} {'ratio':>7}")
    worst = 0.0
    for label, decided, resolved in rows:
        ratio = f"{decided / resolved:6.1f}x" if resolved else "     -"
        print(f"{label:<28} {decided * 1e6:8.1f}µs {resolved * 1e6:8.1f}µs {ratio}")
        worst = max(worst, decided)
    verdict = "PASS" if worst * 1e3 <= TARGET_MS else "FAIL"
    print(f"worst case {worst * 1e3:.3f} ms a call; target ≤ {TARGET_MS} ms: {verdict}")


if __name__ == "__main__":
    main()
