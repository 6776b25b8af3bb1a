"""``milk-tui eval run``: every scenario once per mode, each in a fresh folder and data dir,
by running the real product headless (``milk-tui -p - --output-format stream-json``) once
per turn; consecutive turns continue the session because ``-p`` resumes the folder's
latest one.  Each turn's record is appended to ``turns.jsonl`` as it ends.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from milk_tui.eval import records as rec
from milk_tui.eval.checks import evaluate
from milk_tui.eval.children import Children, Outcome
from milk_tui.eval.progress import Progress
from milk_tui.eval.scenarios import Scenario
from milk_tui.eval.turn_events import fold_claude_line, fold_milk_line, total
from milk_tui.eval.workdir import changed, diff, snapshot, write_setup

CLAUDE_CODE = "claude-code"
MODE_FLAGS: dict[str, list[str]] = {
    "routed": [],
    "primary": ["--primary"],
    "escalation": ["--escalate"],
}
ALL_MODES = (*rec.BUILTIN_MODES, CLAUDE_CODE)
TURN_TIMEOUT_S = 600.0
EXIT_INTERRUPTED = 130

MILK_COMMAND = [sys.executable, "-m", "milk_tui.cli"]
"""This interpreter's milk-tui: the eval measures the installed product, not a copy."""


@dataclass
class RunOptions:
    scenarios: list[Scenario]
    modes: list[str]
    results: Path
    config_path: str | None = None
    """Passed to every run as ``--config`` (the user's file; the data dir is a fresh one)."""
    jobs: int = 1
    turn_timeout: float = TURN_TIMEOUT_S
    scenarios_dir: str = ""
    info: rec.RunInfo | None = None


class Runner:
    def __init__(self, opts: RunOptions, progress: Progress) -> None:
        self.opts = opts
        self.progress = progress
        self.children = Children()
        self.claude = shutil.which("claude") or ""

    def run(self) -> int:
        """0, or 130 when stopped by Ctrl+C (what finished is kept)."""
        o = self.opts
        info = o.info or rec.RunInfo(
            started=time.time(), modes=o.modes, scenarios_dir=o.scenarios_dir
        )
        modes = list(o.modes)
        if CLAUDE_CODE in modes and not self.claude:
            modes.remove(CLAUDE_CODE)
            note = "claude-code: skipped (the claude command is not installed)"
            info.notes.append(note)
            self.progress.note(note)
        info.modes = modes
        rec.write_run(o.results, info)
        pool = cf.ThreadPoolExecutor(max_workers=max(1, o.jobs))
        futures = [pool.submit(self._scenario, s, modes) for s in o.scenarios]
        interrupted = False
        try:
            pending = set(futures)
            while pending:  # a short wait at a time: Ctrl+C is seen at once
                _, pending = cf.wait(pending, timeout=0.2)
        except KeyboardInterrupt:
            interrupted = True
            self.children.stop_all()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            self.progress.close()
        for f in futures:
            if f.done() and not f.cancelled() and f.exception() is not None:
                self.progress.note(f"eval: {type(f.exception()).__name__}: {f.exception()}")
        info.finished = time.time()
        info.interrupted = interrupted
        rec.write_run(o.results, info)
        return EXIT_INTERRUPTED if interrupted else 0

    # ----- one scenario, every mode ---------------------------------------------------------

    def _scenario(self, scenario: Scenario, modes: list[str]) -> None:
        for mode in modes:
            if self.children.stopping.is_set():
                return
            with tempfile.TemporaryDirectory(prefix="milk-eval-") as tmp:
                folder, home = Path(tmp) / "work", Path(tmp) / "home"
                folder.mkdir()
                home.mkdir(mode=0o700)
                write_setup(folder, scenario.setup_files)
                self._turns(scenario, mode, folder.resolve(), home)

    def _turns(self, scenario: Scenario, mode: str, folder: Path, home: Path) -> None:
        changed_so_far: set[str] = set()
        for i, turn in enumerate(scenario.turns):
            label = f"{scenario.name} · {mode} · turn {i + 1}/{len(scenario.turns)}"
            self.progress.start(label)
            r = rec.TurnRecord(
                scenario=scenario.name, mode=mode, turn=i, prompt=turn.prompt, label=turn.route
            )
            before = snapshot(folder)
            started = time.monotonic()
            out = self._child(mode, i, folder, home, turn.prompt)
            r.seconds = round(time.monotonic() - started, 3)
            if out.returncode is None and not out.timed_out:
                self.progress.finish(label, "stopped")
                return  # stopped by Ctrl+C: an unfinished turn is not a result
            after = snapshot(folder)
            self._fill(r, mode, out)
            r.files_changed = changed(before, after)
            r.diff = diff(before, after, r.files_changed)
            changed_so_far.update(r.files_changed)
            r.expected = evaluate(r, scenario, folder, changed_so_far)
            rec.append(self.opts.results / rec.TURNS_FILE, r)
            self.progress.finish(label, _outcome(r))

    def _child(self, mode: str, turn: int, folder: Path, home: Path, prompt: str) -> Outcome:
        env = dict(os.environ)
        if mode == CLAUDE_CODE:
            cmd = [self.claude, "-p", "--output-format", "stream-json", "--verbose",
                   "--permission-mode", "acceptEdits"]  # fmt: skip
            if turn:
                cmd.append("--continue")
        else:
            env["MILK_HOME"] = str(home)  # a throw-away database, sessions and facts
            env.pop("MILK_CONFIG", None)  # the config is passed explicitly below
            cmd = [*MILK_COMMAND, "-p", "-", "--output-format", "stream-json", "--allow-tools",
                   *MODE_FLAGS[mode]]  # fmt: skip
            if self.opts.config_path:
                cmd += ["--config", self.opts.config_path]
        try:
            return self.children.run(
                cmd, cwd=str(folder), env=env, stdin=prompt, timeout=self.opts.turn_timeout
            )
        except OSError as e:
            return Outcome("", f"cannot start {cmd[0]}: {e.strerror or e}", 127)

    def _fill(self, r: rec.TurnRecord, mode: str, out: Outcome) -> None:
        text: list[str] = []
        for line in out.stdout.splitlines():
            if mode == CLAUDE_CODE:
                fold_claude_line(r, line)
            else:
                fold_milk_line(r, line, text)
        if mode == CLAUDE_CODE:
            r.agent = CLAUDE_CODE
        if not r.text and text:
            r.text = "".join(text)
        total(r)
        if out.timed_out:
            r.error = r.error or f"timed out after {self.opts.turn_timeout:g} s"
        elif out.returncode and not r.error:
            last = next((ln for ln in reversed(out.stderr.splitlines()) if ln.strip()), "")
            r.error = (
                f"exit {out.returncode}: {last.strip()[:300]}" if last else f"exit {out.returncode}"
            )
        if r.error:
            r.agent = "" if mode != CLAUDE_CODE else r.agent


def _outcome(r: rec.TurnRecord) -> str:
    if r.error:
        return f"failed: {r.error}"
    checks = "".join("✓" if c.ok else "✗" for c in r.expected)
    return f"{r.slot or r.agent} ({r.agent}), {r.seconds:.1f}s" + (
        f", checks {checks}" if checks else ""
    )
