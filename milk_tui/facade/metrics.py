"""The local metrics file for ``/metrics``, ``/otel trim`` and ``milk-tui metrics``.

Reading and trimming run in a worker thread: the file may hold tens of megabytes.  While a
session runs, a trim goes through its writer thread (between two appends); the command line
trims with a writer of its own (engine/signal_file.py opens the file for each line, so a
running TUI's next append lands in the trimmed file).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from milk_tui.config.otel import OtelConfig
from milk_tui.config.paths import data_dir
from milk_tui.engine.metrics_log import MetricsLog, metrics_path
from milk_tui.engine.metrics_summary import (
    AgentFigures,
    MetricsReport,
    TurnPoint,
    read_report,
)
from milk_tui.engine.signal_file import SignalFile, days_ago

__all__ = ["AgentFigures", "LocalMetrics", "MetricsReport", "TurnPoint", "TRIM_DAYS"]

TRIM_DAYS = 7.0
"""``/otel trim`` keeps this many days of records unless told otherwise."""


class LocalMetrics:
    def __init__(self, cfg: OtelConfig, log: MetricsLog | None, data: Path | None = None) -> None:
        self._cfg = cfg
        self._log = log
        self.data = data or data_dir()

    @property
    def enabled(self) -> bool:
        """Records are being written in this run."""
        return self._log is not None

    @property
    def path(self) -> Path:
        return metrics_path(self.data)

    def report(self) -> MetricsReport:
        if self._log is not None:
            self._log.file.flush(2.0)  # the last turn's line is in the file
        return read_report(self.data)

    async def areport(self) -> MetricsReport:
        return await asyncio.to_thread(self.report)

    def trim(self, days: float = TRIM_DAYS) -> tuple[int, int]:
        """Keep the records of the last ``days`` days (0: none) and drop the old file:
        ``(kept, removed)``; ``OSError`` when the file cannot be rewritten."""
        since = days_ago(days) if days > 0 else float("inf")
        if self._log is not None:
            return self._log.file.trim(since)
        own = SignalFile(self.path, self._cfg.warn_bytes, self._cfg.rotate_bytes, _ignore)
        try:
            return own.trim(since)
        finally:
            own.close()

    async def atrim(self, days: float = TRIM_DAYS) -> tuple[int, int]:
        return await asyncio.to_thread(self.trim, days)


def _ignore(_level: str, _message: str) -> None:
    """A trim alone writes no line, so it has nothing to tell."""
