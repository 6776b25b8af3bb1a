"""The ``--debug`` wire log: every backend's raw traffic in one append-only file, redacted.

Lines are prefixed by direction (``>>>`` out, ``<<<`` in, ``---`` our own notes) and the
agent's name, so one file can hold both agents of a session.  A write that fails (disk
full, file removed) is dropped: a debug aid must never end a turn.

Redaction runs over the whole received stream, not per read: raw bytes are cut into lines
first (a key split across two network reads is masked whole), and ``SplitSecrets`` masks a
key spelled out across several records (one SSE event or stream-json line per delta).
The file is created 0600 (docs/adr/0015-no-secret-on-disk.md).
"""

from __future__ import annotations

import codecs
import contextlib
import json
import os
import time
from pathlib import Path

from milk_tui.agents.redact import Redactor, SplitSecrets

LONG_LINE_CHARS = 1 << 20
"""A received line longer than this without a newline is written in parts (redacted, with
a tail the length of the longest secret kept back) instead of being buffered whole."""
LONG_LINE_KEEP = 4096


class WireLog:
    def __init__(self, path: Path, agent: str, redact: Redactor) -> None:
        self.path = path
        self.agent = agent
        self.redact = redact
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._partial: list[str] = []
        self._partial_chars = 0
        self._split = SplitSecrets()
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            if path.exists() and path.stat().st_mode & 0o077:
                path.chmod(0o600)  # a log from an older version, created 0644

    def _write(self, text: str) -> None:
        if not text:
            return
        with contextlib.suppress(OSError):
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            with open(fd, "a", encoding="utf-8") as f:
                f.write(text)

    def _records(self, records: list[str]) -> None:
        self._write("".join(records))

    def _record(self, text: str) -> None:
        """One whole received line: masked by value and pattern, then across records."""
        self._records(self._split.feed(self.redact(text)))

    def flush(self) -> None:
        """Write whatever is held back: the end of a stream, or before a record of ours."""
        rest = "".join(self._partial) + self._decoder.decode(b"", final=True)
        self._partial.clear()
        self._partial_chars = 0
        self._records(self._split.flush())
        if rest:
            self._write(self.redact(rest))

    def request(self, method: str, target: str, headers: dict[str, str], body: bytes) -> None:
        """One outgoing request: method and URL (or operation and model), headers, body."""
        self.flush()
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        hdrs = json.dumps(self.redact.headers(headers))
        self._write(
            self.redact(
                f"\n>>> {stamp} [{self.agent}] {method} {target}\n>>> headers {hdrs}\n"
                f">>> body {body.decode(errors='replace')}\n"
            )
        )

    def response(self, status: int) -> None:
        self.flush()
        self._write(f"<<< [{self.agent}] HTTP {status}\n")

    def data(self, chunk: bytes) -> None:
        """Raw response bytes as received (SSE keeps its own line breaks), one line at a time."""
        text = self._decoder.decode(chunk)
        nl = text.rfind("\n")
        if nl == -1:
            self._partial.append(text)
            self._partial_chars += len(text)
            if self._partial_chars > LONG_LINE_CHARS:
                self._long_line()
            return
        head = "".join(self._partial) + text[: nl + 1] if self._partial else text[: nl + 1]
        self._partial = [text[nl + 1 :]] if nl + 1 < len(text) else []
        self._partial_chars = len(text) - nl - 1
        for line in head.splitlines(keepends=True):
            self._record(line)

    def _long_line(self) -> None:
        text = self.redact("".join(self._partial))
        keep = max(LONG_LINE_KEEP, *(len(s) for s in self.redact.secrets), 0)
        self._records(self._split.flush())
        self._write(text[:-keep])
        self._partial = [text[-keep:]]
        self._partial_chars = keep

    def line(self, text: str) -> None:
        """One received record that is not raw bytes (a decoded event, a stdout line)."""
        self._record(f"<<< [{self.agent}] {text.rstrip(chr(10))}\n")

    def note(self, text: str) -> None:
        self.flush()
        self._write(self.redact(f"--- [{self.agent}] {text}\n"))
