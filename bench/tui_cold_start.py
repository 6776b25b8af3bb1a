"""Cold start to first frame: ``milk-tui --demo`` vs a bare Textual app with the same widgets
(budget: ≤ 1.3×).

Each sample is a fresh interpreter (``python bench/tui_cold_start.py --child milk|bare``)
that runs its app headless and exits on ``Ready`` (sent once the first frame is on screen);
the parent times the whole process, imports included, alternating the two.  milk-tui's
first frame is its startup screen (the core loads in a thread right after it), so the time
until the main screen is up is printed too.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


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
            self.exit()

    Bare().run(headless=True, size=(120, 40))


def child_milk(until_main: bool) -> None:
    """``milk-tui --demo --new`` as ``run_app`` starts it: the core loads after the first frame."""
    from milk_tui.tui.app import MilkApp

    def factory():  # type: ignore[no-untyped-def]
        from milk_tui.facade.application import start

        return start(demo=True, new=True, cooperative=True)

    class Timed(MilkApp):
        def on_ready(self, event) -> None:  # type: ignore[no-untyped-def]
            if not until_main:
                event.prevent_default()  # do not start loading the core: we only time the frame
                self.exit()

        def _show_main(self) -> None:
            super()._show_main()
            if until_main:
                self.call_after_refresh(self.exit)

    Timed(runtime_factory=factory).run(headless=True, size=(120, 40))


def sample(kind: str, env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, __file__, "--child", kind], check=True, env=env, stdout=subprocess.DEVNULL
    )
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", choices=("milk", "milk-main", "bare"))
    ap.add_argument("--quick", action="store_true", help="3 rounds")
    ap.add_argument("--rounds", type=int, default=9)
    a = ap.parse_args()
    if a.child == "bare":
        child_bare()
        return
    if a.child in ("milk", "milk-main"):
        child_milk(a.child == "milk-main")
        return
    home = tempfile.mkdtemp(prefix="milk-cold-")
    env = {**os.environ, "MILK_HOME": home, "MILK_DEMO_PACE": "0"}
    rounds = 3 if a.quick else a.rounds
    sample("bare", env), sample("milk", env)  # warm the OS page cache and .pyc files
    bare, milk, main_ready = [], [], []
    for _ in range(rounds):
        bare.append(sample("bare", env))
        milk.append(sample("milk", env))
        main_ready.append(sample("milk-main", env))
    b, m = statistics.median(bare), statistics.median(milk)
    r = statistics.median(main_ready)
    print(f"cold start to first frame (fresh interpreter, headless 120×40), {rounds} rounds")
    print(
        f"  bare Textual app, same widgets: median {b * 1000:6.0f} ms  min {min(bare) * 1000:6.0f} ms"
    )
    print(
        f"  milk-tui --demo               : median {m * 1000:6.0f} ms  min {min(milk) * 1000:6.0f} ms"
    )
    print(f"  ratio (median) {m / b:.2f}×  (min) {min(milk) / min(bare):.2f}×  (target ≤ 1.3)")
    print(
        f"  milk-tui until the main screen (session loaded, agents built): median {r * 1000:6.0f} ms"
        f" = {r / b:.2f}× bare"
    )


if __name__ == "__main__":
    main()
