"""Cold start: ``milk-tui`` resuming a 10,000-turn session vs a bare Textual app with the
same widgets (budget: main screen with its prompt focused ≤ 1.5× bare).

Each sample is a fresh interpreter (``python bench/tui_cold_start.py --child KIND``) that
runs its app headless and exits once it is up, printing the wall-clock moment it got there;
the parent times launch → that moment (imports included) and launch → process gone,
alternating the kinds in one run:

* ``bare`` — a bare Textual app with the same widgets, exits on ``Ready`` (its first frame);
* ``milk`` — milk-tui's first frame (the startup screen), launched as ``milk-tui --demo``
  through the CLI's ``main``;
* ``milk-main`` — milk-tui as ``run_app`` starts it, resuming the folder's session of
  ``--turns`` turns, until a frame of the main screen with the prompt focused is written
  (the point at which Textual posts ``Ready`` for the bare app's first screen).  As a user's
  every start but the first, it paints from the last start's card and reads the config
  after that frame (facade/start_card.py); the run says how many samples did;
* ``no-card`` — the same with the card removed first: a start after the card was lost
  (or, with a config file, one after the config was edited, which reads it first);
* ``first`` — a home's first start: a new, empty ``MILK_HOME`` for each sample (no config,
  card or database), a new session.

The ``milk-main`` child also marks where its time goes (``PHASES``: the app's module loaded,
its first frame, the opening handed over, the main screen's modules loaded, its first frame
written); the run prints the median of each phase, so a change shows which one it moved.

The session is written once into a temporary ``MILK_HOME`` before the first sample, and
milk-tui run once in it until its code is highlighted (a user's last run, which lasted
past the first frame: it leaves the reply renders the next start paints from,
``tui/widgets/kept_renders.py``).
``--nothing-configured`` launches ``milk-tui`` without ``--demo`` in that home (it has no
config file): a first run, which looks for a local server on the usual ports.
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CWD = "/tmp/milk-bench-cold"
PHASES = (
    ("loaded", "launch → the app's module loaded (Python, the CLI, Textual, milk's app)"),
    ("first_frame", "→ first frame (the startup screen)"),
    ("opened", "→ the opening handed over (its modules, config, database, session; Markdown)"),
    ("main_modules", "→ the main screen's modules loaded (Markdown stack, widgets)"),
    ("main_frame", "→ the main screen's first frame (compose, CSS, layout, paint)"),
)
"""The ``milk-main`` child's marks, in order, each with what the time up to it holds."""


def child_bare() -> None:
    from textual.app import App, ComposeResult
    from textual.containers import Horizontal, Vertical, VerticalScroll
    from textual.widgets import DataTable, Input, RichLog, Static, TextArea

    class Bare(App[None]):
        CSS = """
        #side { width: 38; } .pane { border: round $panel; height: auto; }
        #convo { height: 1fr; } TextArea { height: 3; } .line { height: 1; }
        """

        def compose(self) -> ComposeResult:
            yield Static("◈ milk  header", classes="line")
            with Horizontal():
                with VerticalScroll(id="convo"):
                    yield Static("welcome\n" * 12, classes="pane")
                with Vertical(id="side"):
                    yield Static("need", classes="pane")
                    with Vertical(classes="pane"):
                        yield Static("escalation")
                        yield RichLog(max_lines=200)
                    with Vertical(classes="pane"):
                        yield Input(placeholder="search")
                        yield DataTable()
            yield Static("", classes="line")
            yield TextArea()
            yield Static("status", classes="line")
            yield Static("keys", classes="line")

        def on_ready(self) -> None:
            _report_ready()
            self.exit()

    Bare().run(headless=True, size=(120, 40))


def child_milk(until_main: bool) -> None:
    """milk-tui as a user starts it — ``milk-tui --demo`` through the CLI's ``main`` — with its
    app class swapped, as its module loads, for one that reports the moment being timed."""
    os.chdir(CWD)
    sys.meta_path.insert(0, _TimedApp(until_main))
    from milk_tui import cli

    # --nothing-configured: a first run (no config, no --demo) looks for a local server
    cli.main([] if os.environ.get("MILK_COLD_NOTHING_CONFIGURED") else ["--demo"])


class _TimedApp(importlib.abc.MetaPathFinder):
    """Loads ``milk_tui.tui.app`` as usual, then replaces its ``MilkApp`` (which ``run_app``
    builds) with a subclass that runs headless and reports its first frame or main screen."""

    def __init__(self, until_main: bool) -> None:
        self.until_main = until_main

    def find_spec(self, name, path, target=None):  # type: ignore[no-untyped-def]
        if name != "milk_tui.tui.app":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.loader is not None
        load = spec.loader.exec_module
        until_main = self.until_main

        def exec_module(module) -> None:  # type: ignore[no-untyped-def]
            load(module)
            _mark("loaded")
            module.MilkApp = _timed(module.MilkApp, until_main)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]  # this one load only
        return spec


def _timed(base, until_main: bool):  # type: ignore[no-untyped-def]
    class Timed(base):  # type: ignore[misc, valid-type]
        def run(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            return super().run(headless=True, size=(120, 40))

        def on_ready(self, event) -> None:  # type: ignore[no-untyped-def]
            if not until_main:
                _report_ready()
                event.prevent_default()  # do not start loading the core: we only time the frame
                self.exit()
                return
            _mark("first_frame")
            super().on_ready()

        def _install_view(self, view) -> None:  # type: ignore[no-untyped-def]
            _mark("opened")
            super()._install_view(view)

        def _show_main(self) -> None:
            import milk_tui.tui.screens.main  # noqa: F401  # what super() imports first

            _mark("main_modules")
            super()._show_main()
            print(f"card {int(getattr(self._opening, 'from_card', False))}", flush=True)
            if until_main and self.main_screen is not None:
                # Textual posts ``Ready`` (the bare app's moment) right after a screen's
                # first layout is written out; this signal comes at the same point of every
                # later one (https://textual.textualize.io/api/screen/).
                self.main_screen.screen_layout_refresh_signal.subscribe(self, self._painted)

        def _painted(self, screen) -> None:  # type: ignore[no-untyped-def]
            from milk_tui.tui.widgets.prompt_input import PromptInput

            if getattr(self, "_reported", False):
                return  # a second layout before the exit is processed
            if screen is self.main_screen and isinstance(self.focused, PromptInput):
                self._reported = True
                _mark("main_frame")
                _report_ready()
                if os.environ.get("MILK_COLD_SEED"):
                    self.set_interval(0.05, self._seeded)  # the user's last run: used a while
                else:
                    self.exit()

        def _seeded(self) -> None:
            from milk_tui.tui.widgets import highlight_later

            if not highlight_later.deferring() and not getattr(self, "_leaving", False):
                self._leaving = True  # the code shown plain is being highlighted again:
                self.set_timer(1.0, self.exit)  # a few layouts, a few replies each

        def _after_first_main_frame(self) -> None:
            # The first refresh of the main screen is written: when the prompt had its focus
            # by then, no later layout (which may wait on other work) is the moment.
            if until_main:
                self._painted(self.main_screen)
            super()._after_first_main_frame()

    return Timed


def make_home(turns: int) -> str:
    """A MILK_HOME whose database holds one session of ``turns`` turns in ``CWD``."""
    home = tempfile.mkdtemp(prefix="milk-cold-")
    os.environ["MILK_HOME"] = home
    os.makedirs(CWD, exist_ok=True)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import tui_resume

    tui_resume.CWD = CWD
    tui_resume.make_session(turns)
    return home


def _mark(phase: str) -> None:
    print(f"phase {phase} {time.time()!r}", flush=True)


def _report_ready() -> None:
    """The child's moment of arrival, on the wall clock the parent started it by, its CPU
    time and its memory then (resident set, MiB)."""
    print(f"ready {time.time()!r} {time.process_time()!r} {_rss_mib()!r}", flush=True)


def _rss_mib() -> float:
    """The process's resident set now (``VmRSS``; Linux), in MiB; 0 where not known."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


PHASE_PATH = str(Path(__file__).resolve().parent.parent)
"""This checkout: only its samples' phases are printed (not the ``--baseline``'s)."""
PHASE_TIMES: list[dict[str, float]] = []
"""Each ``milk-main`` sample's marks, in seconds after its launch (``sample`` adds them)."""
FROM_CARD: list[bool] = []
"""Whether each ``milk-main`` sample of this checkout painted from the start card."""


def sample(kind: str, env: dict[str, str]) -> tuple[float, float, float]:
    """(launch → ready, launch → process gone, CPU until ready): ready is the frame or focus
    being timed; the process end adds the exit and whatever start-up deferred past that
    moment; the CPU time (all threads) is what other load on the machine moves least."""
    if kind == "no-card":
        Path(env["MILK_HOME"], "start-card.json").unlink(missing_ok=True)
    new_home = tempfile.mkdtemp(prefix="milk-cold-first-") if kind == "first" else ""
    if new_home:
        env = {**env, "MILK_HOME": new_home}
    t0, w0 = time.perf_counter(), time.time()
    out = subprocess.run(
        [sys.executable, __file__, "--child", "milk-main" if kind in CHILD_MAIN else kind],
        check=True,
        env=env,
        capture_output=True,
        text=True,
    ).stdout
    total = time.perf_counter() - t0
    if new_home:
        shutil.rmtree(new_home, ignore_errors=True)
    ready = [line.split()[1:] for line in out.splitlines() if line.startswith("ready ")]
    marks = [line.split()[1:] for line in out.splitlines() if line.startswith("phase ")]
    if kind == "milk-main" and env.get("PYTHONPATH") == PHASE_PATH:
        PHASE_TIMES.append({name: float(t) - w0 for name, t in marks})
        FROM_CARD.append("card 1" in out.splitlines())
    base = " (--baseline)" if env.get("PYTHONPATH") != PHASE_PATH else ""
    MEMORY.setdefault(kind + base, []).append(float(ready[-1][2]))
    return float(ready[-1][0]) - w0, total, float(ready[-1][1])


CHILD_MAIN = ("no-card", "first")
"""Kinds that run the ``milk-main`` child in another home or state."""
MEMORY: dict[str, list[float]] = {}
"""Each kind's resident set at ready, MiB (``… base``: the ``--baseline`` checkout's)."""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", choices=("milk", "milk-main", "bare"))
    ap.add_argument("--quick", action="store_true", help="3 rounds")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--turns", type=int, default=10000)
    ap.add_argument(
        "--baseline", metavar="DIR", help="also time the main screen of another checkout"
    )
    ap.add_argument(
        "--nothing-configured",
        action="store_true",
        help="start as a first run does: no config and no --demo (milk looks for a local server)",
    )
    a = ap.parse_args()
    if a.child == "bare":
        child_bare()
        return
    if a.child in ("milk", "milk-main"):
        child_milk(a.child == "milk-main")
        return
    home = make_home(a.turns)
    env = {**os.environ, "MILK_HOME": home, "MILK_DEMO_PACE": "0", "PYTHONPATH": PHASE_PATH}
    if a.nothing_configured:
        env["MILK_COLD_NOTHING_CONFIGURED"] = "1"
    # An installed package has its .pyc files: without them every sample would compile
    # milk_tui's sources (~0.1 s) while Textual's site-packages come compiled.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    rounds = 3 if a.quick else a.rounds
    # The user's last run before these starts lasted past the first frame (a sample leaves
    # at it): what it leaves for the next start (kept reply renders) is written as then.
    seed = [sys.executable, __file__, "--child", "milk-main"]
    subprocess.run(seed, check=True, env={**env, "MILK_COLD_SEED": "1"}, capture_output=True)
    sample("bare", env), sample("milk-main", env)  # warm the OS page cache and .pyc files
    runs: dict[str, list[tuple[float, float, float]]] = {
        "bare": [], "milk": [], "milk-main": [], "no-card": [], "first": [],
    }  # fmt: skip
    if a.baseline:
        runs["baseline"] = []
        runs["baseline-first"] = []
        # Its own copy of the home: each checkout keeps its last run's renders (they name
        # their renderer's module files), so a shared home would make the other's unusable.
        base_home = tempfile.mkdtemp(prefix="milk-cold-base-")
        shutil.copytree(
            home, base_home, dirs_exist_ok=True, ignore=shutil.ignore_patterns("kept-*")
        )
        base_env = {**env, "PYTHONPATH": a.baseline, "MILK_HOME": base_home}
        subprocess.run(
            seed, check=True, env={**base_env, "MILK_COLD_SEED": "1"}, capture_output=True
        )
        sample("milk-main", base_env)
    for _ in range(rounds):
        for kind, samples in runs.items():
            if kind == "baseline":
                samples.append(sample("milk-main", base_env))
            elif kind == "baseline-first":
                samples.append(sample("first", base_env))
            else:
                samples.append(sample(kind, env))
    print(f"cold start (fresh interpreter, headless 120×40), {rounds} rounds, medians [min–max]")
    print(
        "  launch → ready (bare: first frame; milk-main: prompt focused) | launch → exit"
        " | CPU until ready"
    )
    med = {k: statistics.median(r for r, _, _ in v) for k, v in runs.items()}
    med_total = {k: statistics.median(t for _, t, _ in v) for k, v in runs.items()}
    med_cpu = {k: statistics.median(c for _, _, c in v) for k, v in runs.items()}
    labels = {
        "bare": "bare Textual app, same widgets",
        "milk": "milk-tui first frame",
        "milk-main": f"milk-tui main screen, {a.turns}-turn session",
        "no-card": "the same, no start card",
        "first": "a home's first start (new empty home)",
        "baseline": "main screen, --baseline checkout",
        "baseline-first": "first start, --baseline checkout",
    }
    for kind, samples in runs.items():
        ready = [r for r, _, _ in samples]
        print(
            f"  {labels[kind]:<40}: {med[kind] * 1000:5.0f} ms"
            f" [{min(ready) * 1000:.0f}–{max(ready) * 1000:.0f}]"
            f" = {med[kind] / med['bare']:.2f}× bare | exit {med_total[kind] * 1000:5.0f} ms"
            f" = {med_total[kind] / med_total['bare']:.2f}× | CPU {med_cpu[kind] * 1000:4.0f} ms"
            f" = {med_cpu[kind] / med_cpu['bare']:.2f}×"
        )
    ratios = sorted(
        r / b for (r, _, _), (b, _, _) in zip(runs["milk-main"], runs["bare"], strict=True)
    )
    print(f"  main screen ÷ bare, per round: {' '.join(f'{x:.2f}' for x in ratios)} (target ≤ 1.5)")
    for kind in ("first", "baseline-first"):
        if kind in runs:
            ratios = sorted(
                r / b for (r, _, _), (b, _, _) in zip(runs[kind], runs["bare"], strict=True)
            )
            print(f"  {labels[kind]} ÷ bare, per round: {' '.join(f'{x:.2f}' for x in ratios)}")
    print("  resident set at ready, MiB (medians [min–max]):")
    for kind, mib in MEMORY.items():
        print(f"    {kind:<22} {statistics.median(mib):5.1f} [{min(mib):.1f}–{max(mib):.1f}]")
    measured = FROM_CARD[1:]  # not the warm-up sample
    print(f"  painted from the start card: {sum(measured)} of {len(measured)} main-screen samples")
    _print_phases(PHASE_TIMES[1:])


def _print_phases(samples: list[dict[str, float]]) -> None:
    """The median time of each phase of milk's main screen (``PHASES``), this checkout only."""
    if not samples:
        return
    print("  milk-tui main screen, by phase (medians; each from the previous mark):")
    before = 0.0
    for name, label in PHASES:
        at = statistics.median(s.get(name, 0.0) for s in samples)
        print(f"    {label:<78} {(at - before) * 1000:5.0f} ms  (at {at * 1000:4.0f})")
        before = at


if __name__ == "__main__":
    main()
