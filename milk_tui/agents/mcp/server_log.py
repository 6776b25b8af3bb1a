"""One MCP server's log, ``<data dir>/mcp/<name>.log``: our start lines and a stdio
server's stderr, with known secrets masked, capped at ``LOG_CAP_BYTES`` and rotated once to
``<name>.log.1``, so a server writing without end costs at most twice the cap on disk.

The server does not write the file itself (a file it holds cannot be capped): its stderr is
a pipe, read by one thread per start (a flood never reaches the event loop the UI draws
on), cut into lines so a secret split across two reads is still masked whole; a line longer
than ``LONG_LINE_CHARS`` is written in parts with a tail the length of the longest secret
kept back.  Known values only, as for tool results: the pattern rules cost ~200 times more
(7 s for 30 MB) and a flood must not take the interpreter from the UI.  Every file is created 0600: a server's stderr may echo its environment.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import threading
import time
from pathlib import Path
from typing import IO

from milk_tui.agents.redact import Redactor, known_secrets
from milk_tui.model.terminal_text import inert

LOG_CAP_BYTES = 1 << 20
LONG_LINE_CHARS = 64 * 1024
READ_BYTES = 64 * 1024
TAIL_CHARS = 300
"""The last stderr line quoted in a failure is cut to this."""


class ServerLog:
    """The log of one server across its restarts (each start opens a new ``capture``)."""

    def __init__(self, path: Path, redact: Redactor, cap: int = LOG_CAP_BYTES) -> None:
        self.path = path
        self.redact = redact
        self._cap = cap
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._size = 0

    def note(self, text: str) -> None:
        self.write(self.redact(text.rstrip("\n") + "\n"))

    def capture(self) -> StderrPipe:
        """A new pipe for one start of a stdio server, read into this log."""
        return StderrPipe(self)

    def write(self, text: str) -> None:
        """Append; a file about to pass the cap is rotated at a line's end first (a line
        longer than the cap is cut).  A failed write (disk full, folder removed) is dropped:
        a log must never stop a server."""
        data = text.encode("utf-8", "replace")
        with self._lock, contextlib.suppress(OSError):
            while data:
                fd = self._open()
                room = self._cap - self._size
                if len(data) <= room:
                    self._size += os.write(fd, data)
                    return
                cut = data.rfind(b"\n", 0, max(room, 0)) + 1
                if not cut and not self._size:
                    cut = self._cap  # one line longer than the whole file may be
                if cut:
                    self._size += os.write(fd, data[:cut])
                    data = data[cut:]
                self._rotate()

    def _open(self) -> int:
        if self._fd is None:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            self._size = os.fstat(self._fd).st_size
        return self._fd

    def _rotate(self) -> None:
        self._close()
        os.replace(self.path, self.path.with_name(self.path.name + ".1"))

    def close(self) -> None:
        """Release the file (a later write opens it again)."""
        with self._lock, contextlib.suppress(OSError):
            self._close()

    def _close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


class StderrPipe:
    """A pipe whose write end is the server's stderr (``errlog`` for the SDK) and whose read
    end a thread copies into the log until every writer closed it."""

    def __init__(self, log: ServerLog) -> None:
        self._log = log
        r, w = os.pipe()
        self.errlog: IO[str] = os.fdopen(w, "w")
        """Handed to the SDK, which gives its file descriptor to the child as stderr."""
        self.last_line = ""
        self.done = threading.Event()
        """Set at end of file: the server and everything it started have exited."""
        self._thread = threading.Thread(
            target=self._pump, args=(r,), name=f"mcp-stderr:{log.path.name}", daemon=True
        )
        self._thread.start()

    def close_ours(self) -> None:
        """Drop our copy of the write end (once the child has its own), so the reader sees
        the end when the server exits."""
        with contextlib.suppress(OSError):
            self.errlog.close()

    def wait_done(self, timeout: float) -> bool:
        return self.done.wait(timeout)

    def _pump(self, fd: int) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        partial = ""
        try:
            while chunk := os.read(fd, READ_BYTES):
                text = partial + decoder.decode(chunk)
                nl = text.rfind("\n")
                head, partial = (text[: nl + 1], text[nl + 1 :]) if nl != -1 else ("", text)
                if head:
                    self._lines(self._log.redact.values(head))
                if len(partial) > LONG_LINE_CHARS:
                    # Every whole secret is masked now; one still arriving begins in the
                    # last (longest secret - 1) characters, which wait for the rest.
                    masked = self._log.redact.values(partial)
                    cut = len(masked) - max(0, _longest_secret(self._log.redact) - 1)
                    self._lines(masked[:cut])
                    partial = masked[cut:]
        except OSError:
            pass
        finally:
            rest = partial + decoder.decode(b"", final=True)
            if rest:
                self._lines(self._log.redact.values(rest) + "\n")
            with contextlib.suppress(OSError):
                os.close(fd)
            self.done.set()

    def _lines(self, text: str) -> None:
        self._log.write(text)
        end = text.rstrip()
        if end:
            line = end[max(end.rfind("\n"), end.rfind("\r")) + 1 :].strip()
            self.last_line = inert(line[-TAIL_CHARS:])  # quoted in a warning on a terminal


def _longest_secret(redact: Redactor) -> int:
    return max((len(s) for s in (*redact.secrets, *known_secrets())), default=0)


def start_line(name: str) -> str:
    return f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} starting {name}"
