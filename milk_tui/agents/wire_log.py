"""The ``--debug`` wire log: every backend's raw traffic in one append-only file, redacted.

Lines are prefixed by direction (``>>>`` out, ``<<<`` in, ``---`` our own notes) and the
agent's name, so one file can hold both agents of a session.  A write that fails (disk
full, file removed) is dropped: a debug aid must never end a turn.
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

from milk_tui.agents.redact import Redactor


class WireLog:
    def __init__(self, path: Path, agent: str, redact: Redactor) -> None:
        self.path = path
        self.agent = agent
        self.redact = redact
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)

    def _write(self, text: str) -> None:
        with contextlib.suppress(OSError), open(self.path, "a", encoding="utf-8") as f:
            f.write(self.redact(text))

    def request(self, method: str, target: str, headers: dict[str, str], body: bytes) -> None:
        """One outgoing request: method and URL (or operation and model), headers, body."""
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        hdrs = json.dumps(self.redact.headers(headers))
        self._write(
            f"\n>>> {stamp} [{self.agent}] {method} {target}\n>>> headers {hdrs}\n"
            f">>> body {body.decode(errors='replace')}\n"
        )

    def response(self, status: int) -> None:
        self._write(f"<<< [{self.agent}] HTTP {status}\n")

    def data(self, chunk: bytes) -> None:
        """Raw response bytes exactly as received (SSE keeps its own line breaks)."""
        self._write(chunk.decode(errors="replace"))

    def line(self, text: str) -> None:
        """One received record that is not raw bytes (a decoded event, a stdout line)."""
        self._write(f"<<< [{self.agent}] {text.rstrip(chr(10))}\n")

    def note(self, text: str) -> None:
        self._write(f"--- [{self.agent}] {text}\n")
