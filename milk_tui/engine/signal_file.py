"""A local JSON-lines signal file, appended on a thread of its own and rotated by size.

The event loop only puts a line on a queue: a slow or full disk never delays the UI or a
turn.  The writer thread opens the file for each line (``O_APPEND``, 0600) so another
milk-tui process appending to the same file, or a trim that replaces it, never loses a
line or writes into a deleted file.  Before a line would take the file past
``rotate_bytes`` the file becomes ``<name>.1`` (the one old file kept, an older one
replaced); the file passing ``warn_bytes`` is told once per run.  A write that fails
(disk full, no permission) is told once per run and the line is dropped: a record of
figures is worth less than a turn (docs/adr/0043-local-metrics-and-install.md).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Tell = Callable[[str, str], None]
"""``(level, message)``: how the writer thread reaches the user (any thread may call it)."""
CLOSE_WAIT_S = 2.0
"""Leaving waits at most this long for the lines still queued."""


@dataclass
class _Trim:
    keep_since: float
    done: threading.Event
    result: tuple[int, int] = (0, 0)


class SignalFile:
    def __init__(self, path: Path, warn_bytes: int, rotate_bytes: int, tell: Tell) -> None:
        self.path = path
        self.old = path.with_name(path.name + ".1")
        self.warn_bytes = warn_bytes
        self.rotate_bytes = max(rotate_bytes, 1)
        self._tell = tell
        self._queue: queue.SimpleQueue[bytes | _Trim | None] = queue.SimpleQueue()
        self._warned = self._failed = False
        self.written = self.dropped = 0
        self._idle = threading.Event()
        self._idle.set()
        self._pending = 0
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="milk-signal-file", daemon=True)
        self._thread.start()

    # ----- the loop's side -------------------------------------------------------------

    def append(self, record: dict[str, Any]) -> None:
        """Queue one record; never blocks, never raises."""
        line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        self._put(line)

    def trim(self, keep_since: float, timeout_s: float = 10.0) -> tuple[int, int]:
        """Drop the old file and every record older than ``keep_since`` (epoch seconds):
        ``(kept, removed)`` record counts; done on the writer thread, between appends."""
        job = _Trim(keep_since, threading.Event())
        self._put(job)
        if not job.done.wait(timeout_s):
            raise OSError(f"trimming {self.path} did not finish")
        return job.result

    def flush(self, timeout_s: float = 10.0) -> bool:
        """Wait until every queued line is written (tests, and leaving)."""
        return self._idle.wait(timeout_s)

    def close(self, timeout_s: float = CLOSE_WAIT_S) -> None:
        self._queue.put(None)
        self._thread.join(timeout_s)

    def _put(self, item: bytes | _Trim) -> None:
        with self._lock:
            self._pending += 1
            self._idle.clear()
        self._queue.put(item)

    # ----- the writer thread -------------------------------------------------------------

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            try:
                if isinstance(item, _Trim):
                    self._do_trim(item)
                else:
                    self._write(item)
            except Exception as e:  # noqa: BLE001 — a figure record must never end the thread
                self._fail(e)
            finally:
                with self._lock:
                    self._pending -= 1
                    if self._pending == 0:
                        self._idle.set()

    def _write(self, line: bytes) -> None:
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            size = 0
        except OSError as e:
            self._fail(e)
            return
        if size and size + len(line) > self.rotate_bytes:
            try:
                os.replace(self.path, self.old)
                size = 0
            except OSError as e:
                self._fail(e)
                return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                _write_all(fd, line)
            finally:
                os.close(fd)
        except OSError as e:
            self._fail(e)
            return
        self.written += 1
        size += len(line)
        if size >= self.warn_bytes and not self._warned:
            self._warned = True
            self._tell(
                "warning",
                f"the metrics file {self.path} is {size / 1048576:.1f} MB (over the "
                f"otel.warn_mb of {self.warn_bytes / 1048576:g}); it is rotated at "
                f"{self.rotate_bytes / 1048576:g} MB, /otel trim shortens it now",
            )

    def _fail(self, e: BaseException) -> None:
        self.dropped += 1
        if self._failed:
            return
        self._failed = True
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e) or type(e).__name__
        self._tell(
            "warning",
            f"metrics not recorded in {self.path} ({why}); turns are not affected",
        )

    def _do_trim(self, job: _Trim) -> None:
        try:
            kept: list[bytes] = []
            removed = 0
            for f in (self.old, self.path):
                for line in _raw_lines(f):
                    rec = _parse(line)
                    if rec is not None and float(rec.get("ts", 0) or 0) >= job.keep_since:
                        kept.append(line)
                    else:
                        removed += 1
            tmp = self.path.with_name(f".{self.path.name}.trim")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                _write_all(fd, b"".join(kept))
            finally:
                os.close(fd)
            os.replace(tmp, self.path)
            with contextlib.suppress(FileNotFoundError):
                self.old.unlink()
            self._warned = False
            job.result = (len(kept), removed)
        finally:
            job.done.set()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _raw_lines(path: Path) -> Iterator[bytes]:
    try:
        with path.open("rb") as f:
            yield from (line for line in f if line.strip())
    except FileNotFoundError:
        return


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        rec = json.loads(line)
    except ValueError:
        return None  # a line cut by a crash or a full disk: skipped, never fatal
    return rec if isinstance(rec, dict) else None


def read_records(path: Path) -> list[dict[str, Any]]:
    """Every record of ``path`` and its old file, oldest first (bad lines skipped)."""
    old = path.with_name(path.name + ".1")
    out = []
    for f in (old, path):
        for line in _raw_lines(f):
            rec = _parse(line)
            if rec is not None:
                out.append(rec)
    return out


def days_ago(days: float) -> float:
    return time.time() - days * 86400


__all__ = ["SignalFile", "days_ago", "read_records"]
