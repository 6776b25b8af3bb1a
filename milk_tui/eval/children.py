"""The processes an eval run starts: each in its own process group, so a stop (Ctrl+C, a
turn's time limit) ends the program and everything it started, and nothing is left."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from dataclasses import dataclass

GRACE_S = 5.0
"""After SIGTERM, how long a group may take to end before SIGKILL."""


@dataclass
class Outcome:
    stdout: str
    stderr: str
    returncode: int | None
    """None: it was stopped (time limit or a stop of the whole run)."""
    timed_out: bool = False


class Children:
    """The running children of one eval run; ``stop_all`` ends every group."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[str]] = set()
        self.stopping = threading.Event()

    def run(
        self, cmd: list[str], *, cwd: str, env: dict[str, str], stdin: str, timeout: float
    ) -> Outcome:
        if self.stopping.is_set():
            return Outcome("", "", None)
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            start_new_session=True,
        )
        with self._lock:
            self._running.add(proc)
        try:
            out, err = proc.communicate(stdin, timeout=timeout)
            stopped = self.stopping.is_set() and proc.returncode != 0
            return Outcome(out, err, None if stopped else proc.returncode)
        except subprocess.TimeoutExpired:
            _end_group(proc)
            out, err = proc.communicate()
            return Outcome(out, err, None, timed_out=True)
        finally:
            with self._lock:
                self._running.discard(proc)

    def stop_all(self) -> None:
        self.stopping.set()
        with self._lock:
            procs = list(self._running)
        threads = [threading.Thread(target=_end_group, args=(p,)) for p in procs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()


def _end_group(proc: subprocess.Popen[str]) -> None:
    """SIGTERM to the child's group, SIGKILL when it is still there after ``GRACE_S``; the
    group outlives its leader when a grandchild still runs, so it is signalled either way."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(GRACE_S)
        except subprocess.TimeoutExpired:
            continue
        if sig is signal.SIGTERM:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)  # a grandchild that ignored SIGTERM
        return
