"""Latency beside the peers, in one run: milk-tui, a minimal Textual app and oterm.

One command for the three figures a person feels, each app measured the same way in the
same run (load average printed before and after):

* prompt → first token on screen, a 1,000-chunk reply — ``bench/first_token.py`` for
  milk-tui and the minimal app (one process, alternated), then oterm by the same
  ``measure`` in its own venv (``bench/peers/oterm_child.py --first-token``);
* key waits and the longest loop slice while a 1,000- and a 20,000-chunk reply stream —
  ``bench/tui_stream.py``'s children for milk-tui and the minimal app and
  ``oterm_child.py --stream`` for oterm, alternated, against one fake server
  (``bench/peers/fake_ollama.py``: the repo's fake OpenAI server plus the Ollama calls
  oterm makes); the minimal app and oterm get one capped sample at 20,000 chunks;
* cold start ÷ a bare Textual app in the same venv — ``bench/tui_cold_start.py``'s
  children (bare, milk-tui's main screen resuming a 10,000-turn session) and
  ``oterm_child.py --cold`` with the bare app run by oterm's interpreter, alternated.
  milk-tui's samples paint from the start card its warm-up sample wrote, as every start
  but a home's first does (facade/start_card.py; ``tui_cold_start.py`` also times the
  start without one).

oterm (``bench/peers/oterm_venv.py``) is installed on first use into its own venv outside
the repo; when that cannot be done, one line says so and its column reads "–".

    python bench/latency.py [--rounds N] [--quick] [--content tok|md] [--no-oterm]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE / "peers")]

import oterm_child  # noqa: E402
import oterm_venv  # noqa: E402
import tui_cold_start  # noqa: E402
import tui_stream  # noqa: E402
from fake_ollama import FakeOllamaServer  # noqa: E402

OTERM_CHILD = str(HERE / "peers" / "oterm_child.py")
APPS = ("minimal", "oterm", "milk")
NAMES = {
    "minimal": "minimal Textual app",
    "oterm": f"oterm {oterm_venv.OTERM_VERSION}",
    "milk": "milk-tui",
}


def load() -> str:
    return "{:.2f} / {:.2f} / {:.2f}".format(*os.getloadavg())


def child_env(**extra: str) -> dict[str, str]:
    env = {**os.environ, **extra}
    # As tui_cold_start.py: children use compiled sources, as an installed package does.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def json_child(cmd: list[str], env: dict[str, str]) -> Any:
    done = subprocess.run(
        cmd, env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL
    )
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[1:3])} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ----- cold start -----------------------------------------------------------------------------


def ready_child(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(launch → the child's ready line, its CPU until then); the child is stopped once it
    has said it is ready (what it does after, e.g. its exit, is not timed)."""
    w0 = time.time()
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL
    )
    assert proc.stdout is not None
    try:
        for raw in proc.stdout:
            line = raw.decode(errors="replace").split()
            if line[:1] == ["ready"]:
                return float(line[1]) - w0, float(line[2])
        raise SystemExit(f"{' '.join(cmd[1:])} ended without being ready")
    finally:
        proc.kill()
        proc.wait()


def cold_start(
    rounds: int, turns: int, oterm_py: Path | None, url: str
) -> dict[str, tuple[float, float]]:
    """Medians per kind: (launch → ready, CPU until ready) in s."""
    tui_cold_start.make_home(turns)  # sets MILK_HOME to a home with the session
    env = child_env(MILK_DEMO_PACE="0")
    me, cold = sys.executable, tui_cold_start.__file__
    kinds: dict[str, tuple[list[str], dict[str, str]]] = {
        "bare": ([me, cold, "--child", "bare"], env),
        "milk": ([me, cold, "--child", "milk-main"], env),
    }
    if oterm_py is not None:
        home = tempfile.mkdtemp(prefix="milk-bench-oterm-cold-")
        oterm_env = child_env(**oterm_child.isolated_env(home, url))
        seeded = [str(oterm_py), OTERM_CHILD, "--seed", home]
        subprocess.run(seeded, env=oterm_env, check=True, capture_output=True, timeout=120)
        kinds["bare-oterm"] = ([str(oterm_py), cold, "--child", "bare"], env)
        kinds["oterm"] = ([str(oterm_py), OTERM_CHILD, "--cold"], oterm_env)
    for cmd, e in kinds.values():
        ready_child(cmd, e)  # warm the page cache and the .pyc files
    runs: dict[str, list[tuple[float, float]]] = {k: [] for k in kinds}
    for r in range(rounds):
        for kind in list(kinds) if r % 2 == 0 else list(reversed(kinds)):
            runs[kind].append(ready_child(*kinds[kind]))
    if oterm_py is not None:
        shutil.rmtree(home, ignore_errors=True)
    return {
        k: (statistics.median(t for t, _ in v), statistics.median(c for _, c in v))
        for k, v in runs.items()
    }


# ----- keys while a reply streams ---------------------------------------------------------------


def stream(
    sizes: list[int], content: str, rounds: int, oterm_py: Path | None, srv: FakeOllamaServer
) -> dict[int, dict[str, list[dict[str, Any]]]]:
    apps = [a for a in APPS if a != "oterm" or oterm_py is not None]
    out: dict[int, dict[str, list[dict[str, Any]]]] = {}
    for n in sizes:
        srv.default_reply = tui_stream.reply_for(content, n)
        rows: dict[str, list[dict[str, Any]]] = {a: [] for a in apps}
        for r in range(rounds):
            for a in apps if r % 2 == 0 else list(reversed(apps)):
                if a != "milk" and n > 5000 and rows[a]:
                    continue  # as tui_stream.py: one capped sample shows it
                if a == "oterm":
                    assert oterm_py is not None
                    cmd = [str(oterm_py), OTERM_CHILD, "--stream", "--url", srv.url]
                    rows[a].append(json_child([*cmd, "--chunks", str(n)], child_env()))
                else:
                    rows[a].append(tui_stream.sample(a, srv.url, n, ""))
        out[n] = rows
    return out


# ----- prompt → first token ------------------------------------------------------------------


FIRST = re.compile(r"request sent\s+([\d.]+) ms, first token painted\s+([\d.]+) ms")


def first_token(rounds: int, chunks: int, oterm_py: Path | None) -> dict[str, tuple[float, float]]:
    """(request sent, first token painted) medians in ms per app."""
    cmd = [sys.executable, str(HERE / "first_token.py"), "--rounds", str(rounds)]
    done = subprocess.run(
        [*cmd, "--chunks", str(chunks)],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode != 0:
        raise SystemExit(f"first_token.py failed:\n{done.stderr[-2000:]}")
    lines = {"minimal": "minimal Textual app", "milk": "milk-tui ("}
    out: dict[str, tuple[float, float]] = {}
    for line in done.stdout.splitlines():
        for app, start in lines.items():
            m = FIRST.search(line)
            if line.strip().startswith(start) and m:
                out[app] = (float(m[1]), float(m[2]))
    if len(out) < 2:
        print(f"first_token.py printed no figures I can read:\n{done.stdout[-1000:]}")
    if oterm_py is not None:
        cmd = [str(oterm_py), OTERM_CHILD, "--first-token", "--rounds", str(rounds)]
        rows = json_child([*cmd, "--chunks", str(chunks)], child_env())
        wire, first = (statistics.median(r[k] for r in rows) * 1000 for k in ("wire", "first"))
        out["oterm"] = (wire, first)
    return out


# ----- the table ---------------------------------------------------------------------------------


def keys(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "–"
    med = tui_stream.median_of(rows, "key_median_ms")
    return f"{med:.1f} / {max(r['key_worst_ms'] for r in rows):.0f} ms"


def slices(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "–"
    wall = max(r["slice_worst_ms"] for r in rows)
    return f"{wall:.0f} / {max(r['slice_cpu_worst_ms'] for r in rows):.0f} ms"


def total(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "–"
    if not all(r["finished"] for r in rows):
        return f"not in {tui_stream.MINIMAL_CAP_S:.0f} s"
    return f"{tui_stream.median_of(rows, 'total_s'):.2f} s"


def first_poll(rows: list[dict[str, Any]]) -> str:
    return f"{tui_stream.median_of(rows, 'first_s') * 1000:.0f} ms" if rows else "–"


def table(
    first: dict[str, tuple[float, float]],
    streams: dict[int, dict[str, list[dict[str, Any]]]],
    cold: dict[str, tuple[float, float]],
    content: str,
    chunks: int,
) -> list[str]:
    head = "| medians, same run | " + " | ".join(NAMES[a] for a in APPS) + " |"
    lines = [head, "|---|" + "---|" * len(APPS)]

    def row(label: str, cell: Any) -> None:
        lines.append(f"| {label} | " + " | ".join(cell(a) for a in APPS) + " |")

    row(
        f"prompt → first token on screen, {chunks:,} chunks (request sent / painted)",
        lambda a: "{:.0f} / **{:.0f} ms**".format(*first[a]) if a in first else "–",
    )
    for n, rows in streams.items():
        capped = any(not r["finished"] for a in APPS for r in rows.get(a, []))
        note = f" (capped replies: the first {tui_stream.MINIMAL_CAP_S:.0f} s)" if capped else ""
        for label, fmt in (
            (f"key wait median / worst, {content} {n:,} chunks{note}", keys),
            (f"longest loop slice after the first token, wall / CPU, {n:,} chunks", slices),
            (f"reply fully rendered, {n:,} chunks", total),
            (f"first token in the widget (tui_stream.py's poll), {n:,} chunks", first_poll),
        ):
            cells = " | ".join(fmt(rows.get(a, [])) for a in APPS)
            lines.append(f"| {label} | {cells} |")

    def ratio(a: str) -> str:
        base = {"milk": "bare", "oterm": "bare-oterm"}.get(a)
        if base is None or a not in cold:
            return f"– (bare app {cold['bare'][0] * 1000:.0f} ms)" if a == "minimal" else "–"
        (t, c), (bt, bc) = cold[a], cold[base]
        return f"**{t / bt:.2f}×** ({t * 1000:.0f} ms ÷ {bt * 1000:.0f} ms; CPU {c / bc:.2f}×)"

    row("cold start ÷ a bare Textual app in the same venv (launch → prompt focused)", ratio)
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--quick", action="store_true", help="1 streaming round (first token, cold start: 3)"
    )
    ap.add_argument("--content", choices=["tok", "md"], default="tok")
    ap.add_argument("--turns", type=int, default=10000, help="milk-tui's session at cold start")
    ap.add_argument("--no-oterm", action="store_true")
    a = ap.parse_args()
    rounds = 1 if a.quick else a.rounds
    chunks, sizes = 1000, [1000, 20000]
    started, load0 = time.perf_counter(), load()
    oterm_py: Path | None = None
    if not a.no_oterm:
        oterm_py, why = oterm_venv.ensure()
        if oterm_py is None:
            print(f"oterm left out: {why}")
    with FakeOllamaServer() as srv:
        cold = cold_start(max(3, rounds), a.turns, oterm_py, srv.url)
        streams = stream(sizes, a.content, rounds, oterm_py, srv)
    first = first_token(max(3, rounds), chunks, oterm_py)
    peer = f"oterm {oterm_venv.OTERM_VERSION}" if oterm_py else "oterm left out"
    print(
        f"Peers in one run: {rounds} round(s) (first token and cold start: {max(3, rounds)}),"
        f" {a.content} replies, headless 120×40; load average (1/5/15 min) {load0} before,"
        f" {load()} after; {time.perf_counter() - started:.0f} s; {peer}"
    )
    print()
    print("\n".join(table(first, streams, cold, a.content, chunks)))


if __name__ == "__main__":
    main()
