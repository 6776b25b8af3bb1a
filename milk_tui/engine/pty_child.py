"""A command the user typed, run on a pseudo-terminal of its own (``direct_bash``).

The child gets a real terminal (``os.openpty``): programs that check for one (colours,
``less``, progress bars) behave as in a shell, and the size the pane has is the size they
see (``resize`` sends them SIGWINCH through the kernel).  The child leads a session of its
own with the PTY as its controlling terminal, so Ctrl+C reaches every process of its
foreground group, not milk-tui.  Its bytes are read on the event loop's reader callback, one
chunk per call (``READ_CHUNK``), so a child that prints without end never holds the loop;
they go to ``on_output`` and never to the real terminal (the front end emulates a screen
from them, docs/adr/0042-direct-shell-and-colour-modes.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import signal
import struct
import subprocess
import termios
from collections.abc import Callable

READ_CHUNK = 512
"""Bytes read per reader callback: pyte parsed 1 KB in a median 8.6 ms on a loaded 2-core box
(4 KB: up to 36 ms), so half that keeps each callback well inside a 16 ms frame."""
TERM = "xterm-256color"


def _controlling_tty() -> None:  # runs in the child between fork and exec
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class PtyChild:
    """One command on one PTY; ``start`` it, feed it keys, ``interrupt``, ``wait``."""

    def __init__(
        self, command: str, cwd: str, *, cols: int, rows: int, on_output: Callable[[bytes], None]
    ) -> None:
        self.command = command
        self.cwd = cwd
        self._size = (max(cols, 2), max(rows, 1))
        self._on_output = on_output
        self._master = -1
        self._proc: subprocess.Popen[bytes] | None = None
        self._eof = asyncio.Event()
        self.returncode: int | None = None

    @property
    def pid(self) -> int:
        return self._proc.pid if self._proc is not None else 0

    def start(self) -> None:
        """Fork the child; raises ``OSError`` (one line for the user) when it cannot."""
        master, slave = os.openpty()
        self._master = master
        self._set_size(slave)
        env = {
            **os.environ,
            "TERM": TERM,
            "COLUMNS": str(self._size[0]),
            "LINES": str(self._size[1]),
        }
        try:
            self._proc = subprocess.Popen(  # noqa: S603 - the user's own typed command
                ["/bin/sh", "-c", self.command],
                stdin=slave,
                stdout=slave,
                stderr=slave,
                cwd=self.cwd,
                env=env,
                close_fds=True,
                preexec_fn=_controlling_tty,  # noqa: PLW1509 - setsid + TIOCSCTTY, nothing else
            )
        except OSError:
            os.close(master)
            self._master = -1
            raise
        finally:
            os.close(slave)
        os.set_blocking(master, False)
        asyncio.get_running_loop().add_reader(master, self._readable)

    def _readable(self) -> None:
        try:
            data = os.read(self._master, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:  # EIO: every process holding the PTY's other end is gone
            data = b""
        if not data:
            self._close_reader()
            return
        self._on_output(data)

    def _close_reader(self) -> None:
        if self._master >= 0 and not self._eof.is_set():
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(self._master)
            self._eof.set()

    def write(self, data: bytes) -> None:
        """Keys typed into the pane, as the terminal would send them."""
        if self._master >= 0 and not self._eof.is_set():
            with contextlib.suppress(OSError):
                os.write(self._master, data)

    def resize(self, cols: int, rows: int) -> None:
        self._size = (max(cols, 2), max(rows, 1))
        if self._master >= 0 and not self._eof.is_set():
            self._set_size(self._master)

    def _set_size(self, fd: int) -> None:
        cols, rows = self._size
        with contextlib.suppress(OSError):
            fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def interrupt(self) -> None:
        """SIGINT to the terminal's foreground process group (the child's own when the
        terminal cannot say), as Ctrl+C in a shell."""
        self._signal(signal.SIGINT)

    def kill(self) -> None:
        self._signal(signal.SIGKILL)

    def _signal(self, sig: signal.Signals) -> None:
        if self._proc is None or self._proc.poll() is not None:
            return
        group = self._proc.pid  # a session leader: its group id is its pid
        with contextlib.suppress(OSError):
            fg = os.tcgetpgrp(self._master)
            group = fg if fg > 0 else group
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, sig)

    async def wait(self) -> int:
        """The exit status once the child is gone and its output read (a signal: 128+N)."""
        assert self._proc is not None, "start() first"
        code = await asyncio.to_thread(self._proc.wait)
        with contextlib.suppress(TimeoutError):
            # a grandchild may hold the PTY open; the child's own output is read by then
            await asyncio.wait_for(self._eof.wait(), 2.0)
        self._close_reader()
        if self._master >= 0:
            os.close(self._master)
            self._master = -1
        self.returncode = 128 - code if code < 0 else code
        return self.returncode
