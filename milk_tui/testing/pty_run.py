"""Run a program on a real pseudo-terminal and keep every byte it writes there.

The escape-injection tests feed these bytes to a terminal emulator (``pyte``) to see what
a user's terminal would do with them: which title it would set, what the screen shows,
whether a clipboard write (OSC 52) was sent at all.
"""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import termios
import time
from collections.abc import Callable
from pathlib import Path

import pyte


class PtyRun:
    """One program on a pty of ``cols``×``rows``; ``raw`` holds what it wrote so far and
    ``screen`` what a VT100-class terminal shows for it."""

    def __init__(self, argv: list[str], *, cwd: Path, env: dict[str, str],
                 cols: int = 120, rows: int = 40) -> None:  # fmt: skip
        self.screen = pyte.Screen(cols, rows)
        self._stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self.code: int | None = None
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        # shutil.get_terminal_size (which Textual asks) prefers COLUMNS/LINES to the pty's
        # own size: a value left in the environment by anything else would win.
        env = {**env, "COLUMNS": str(cols), "LINES": str(rows)}
        self.proc = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave,
            start_new_session=True, close_fds=True,
        )  # fmt: skip
        os.close(slave)
        self._master = master

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def flat(self) -> str:
        """The screen's rows run together: a line the terminal wrapped reads whole."""
        return "".join(self.screen.display)

    def pump(self, wait: float = 0.1) -> bool:
        """Read what is there (waiting up to ``wait`` s); False once the program closed the pty."""
        ready, _, _ = select.select([self._master], [], [], wait)
        if not ready:
            return True
        try:
            data = os.read(self._master, 65536)
        except OSError:  # EIO: every writer of the pty is gone
            return False
        if not data:
            return False
        self.raw += data
        self._stream.feed(data)
        return True

    def until(self, predicate: Callable[[str], bool], what: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.pump() and not predicate(self.text()):
                break
            if predicate(self.text()):
                return self.text()
        raise AssertionError(f"timed out waiting for {what}; screen:\n{self.text()}")

    def send(self, data: bytes) -> None:
        os.write(self._master, data)

    def finish(self, timeout: float = 60) -> int:
        """Read until the program exits and closes the pty; its exit code."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.pump():
            pass
        try:
            return self.proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        finally:
            os.close(self._master)


def run_in_pty(argv: list[str], *, cwd: Path, env: dict[str, str], timeout: float = 60) -> PtyRun:
    """Run ``argv`` to its end on a pty; the finished run (``raw``, ``screen``, ``code``)."""
    run = PtyRun(argv, cwd=cwd, env=env)
    run.code = run.finish(timeout)
    return run
