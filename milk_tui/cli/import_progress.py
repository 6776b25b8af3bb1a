"""``milk-tui import-go``'s progress on stderr: a bar redrawn in place on a terminal, one
plain line per finished step otherwise (a pipe or a log gets no carriage returns, no
escapes)."""

from __future__ import annotations

import time
from typing import TextIO

from milk_tui.model.terminal_text import inert

BAR = 24
REDRAW_S = 0.1
"""Fewest seconds between two redraws of the bar (a step's last count is always drawn)."""


class ImportProgress:
    """Called as ``(step, done, total)`` by the importer."""

    def __init__(self, out: TextIO, *, tty: bool | None = None) -> None:
        self.out = out
        self.tty = out.isatty() if tty is None else tty
        self._drawn_at = 0.0
        self._shown = False

    def __call__(self, step: str, done: int, total: int) -> None:
        label = inert(step)
        if not self.tty:
            if done >= total:
                self.out.write(f"import-go: {label}: {done:,}/{total:,}\n")
                self.out.flush()
            return
        now = time.monotonic()
        if done < total and now - self._drawn_at < REDRAW_S:
            return
        self._drawn_at = now
        filled = BAR * done // max(total, 1)
        line = f"import-go {label} [{'█' * filled}{'·' * (BAR - filled)}] {done:,}/{total:,}"
        self.out.write("\r\x1b[K" + line[:200])
        if done >= total:  # a finished step stays on screen, on its own line
            self.out.write("\n")
        self._shown = done < total
        self.out.flush()

    def close(self) -> None:
        """Clear a bar left mid-way (the import failed or was cut short)."""
        if self.tty and self._shown:
            self.out.write("\r\x1b[K")
            self.out.flush()
            self._shown = False
