"""Progress on stderr: one line per step when stderr is not a terminal (a log, CI), one
line redrawn in place with a bar when it is."""

from __future__ import annotations

import threading
import time
from typing import TextIO

from milk_tui.model.terminal_text import inert

BAR = 20


class Progress:
    def __init__(self, out: TextIO, total: int, *, tty: bool | None = None) -> None:
        self.out = out
        self.total = max(total, 1)
        self.done = 0
        self.tty = out.isatty() if tty is None else tty
        self._lock = threading.Lock()
        self._running: dict[str, float] = {}

    def start(self, label: str) -> None:
        with self._lock:
            self._running[label] = time.monotonic()
            if self.tty:
                self._redraw()
            else:
                self._line(f"eval: [{self.done + 1}/{self.total}] {inert(label)} …")

    def finish(self, label: str, outcome: str) -> None:
        with self._lock:
            self._running.pop(label, None)
            self.done += 1
            if not self.tty:
                self._line(f"eval: [{self.done}/{self.total}] {inert(label)}: {inert(outcome)}")
                return
            if outcome.startswith("failed"):  # a failure stays on screen above the bar
                self.out.write("\r\x1b[K")
                self._line(f"eval: {inert(label)}: {inert(outcome)}")
            self._redraw()

    def note(self, text: str) -> None:
        """A line that stays (a skipped mode, a file that did not load)."""
        with self._lock:
            if self.tty:
                self.out.write("\r\x1b[K")
            self._line(inert(text))
            if self.tty:
                self._redraw()

    def close(self) -> None:
        with self._lock:
            if self.tty:
                self.out.write("\r\x1b[K")
                self.out.flush()

    def _line(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def _redraw(self) -> None:
        filled = BAR * self.done // self.total
        now = next(iter(self._running), "")
        since = self._running.get(now)
        secs = f" ({time.monotonic() - since:.0f}s)" if since is not None else ""
        line = f"eval [{'█' * filled}{'·' * (BAR - filled)}] {self.done}/{self.total} {inert(now)}{secs}"
        self.out.write("\r\x1b[K" + line[:200])
        self.out.flush()
