"""bash: ``sh -c`` in the working folder, in its own process group, output capped while read.

The command gets a new session (``start_new_session``), so on timeout or cancellation the
whole group (and any group a descendant started) is killed with ``process_tree.kill_tree``:
nothing it spawned keeps running.  stdout and stderr are read as they come and only their
head and tail are kept, so a command that floods output costs bounded memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass, field
from typing import Any

from milk_tui.agents.base import ToolOutcome
from milk_tui.agents.process_tree import kill_tree, kill_tree_now
from milk_tui.agents.tools.paths import Workspace

DEFAULT_TIMEOUT_S = 120
MAX_TIMEOUT_S = 600
STREAM_CAP_BYTES = 16 * 1024
"""Kept of each of stdout and stderr: half from the start, half from the end."""
EXIT_GRACE_S = 1.0
"""After the shell exits, how long background children may keep its output open before
they are stopped (a ``cmd &`` that still writes to our pipe would hold the call for ever)."""
READ_CHUNK = 64 * 1024


@dataclass(slots=True)
class CappedStream:
    """The head and tail of a byte stream, and how much was cut between them."""

    cap: int = STREAM_CAP_BYTES
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    cut: int = 0

    def add(self, data: bytes) -> None:
        room = self.cap // 2 - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if not data:
            return
        self.tail += data
        over = len(self.tail) - self.cap // 2
        if over > 0:
            del self.tail[:over]
            self.cut += over

    def text(self, name: str) -> str:
        head = self.head.decode(errors="replace")
        tail = self.tail.decode(errors="replace")
        if not self.cut:
            return head + tail
        return f"{head}\n[… {self.cut} bytes of {name} cut …]\n{tail}"


async def _pump(reader: asyncio.StreamReader, sink: CappedStream) -> None:
    while chunk := await reader.read(READ_CHUNK):
        sink.add(chunk)


async def _open_pipe() -> tuple[int, asyncio.StreamReader, asyncio.BaseTransport]:
    """A pipe whose write end goes to the child and whose read end we read.  Our own pipes,
    not ``PIPE``: the process is then "done" when the shell exits, whoever else still
    holds the pipe (asyncio's Process.wait would wait for the pipes too)."""
    r, w = os.pipe()
    reader = asyncio.StreamReader()
    loop = asyncio.get_running_loop()
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(r, "rb", 0)
    )
    return w, reader, transport


async def bash(ws: Workspace, command: str, timeout_seconds: float | None = None) -> ToolOutcome:
    if not command.strip():
        return ToolOutcome("bash: command is empty", is_error=True)
    limit = float(timeout_seconds or DEFAULT_TIMEOUT_S)
    limit = min(max(limit, 1.0), MAX_TIMEOUT_S)
    w_out, r_out, t_out = await _open_pipe()
    w_err, r_err, t_err = await _open_pipe()
    try:
        proc = await asyncio.create_subprocess_exec(
            "sh",
            "-c",
            command,
            cwd=ws.cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=w_out,
            stderr=w_err,
            start_new_session=True,
        )
    except BaseException:
        t_out.close()
        t_err.close()
        raise
    finally:
        os.close(w_out)
        os.close(w_err)
    out, err = CappedStream(), CappedStream()
    pumps = asyncio.gather(_pump(r_out, out), _pump(r_err, err))
    note = ""
    try:
        try:
            await asyncio.wait_for(proc.wait(), limit)
        except TimeoutError:
            await kill_tree(proc)
            await _finish(pumps)
            return ToolOutcome(
                out.text("stdout"),
                is_error=True,
                stderr=_join(
                    err.text("stderr"),
                    f"bash: command timed out after {limit:g}s; its process group was killed",
                ),
            )
        try:
            await asyncio.wait_for(asyncio.shield(pumps), EXIT_GRACE_S)
        except TimeoutError:
            await kill_tree(proc)
            note = "[background processes still holding the output were stopped]"
        await _finish(pumps)
    except asyncio.CancelledError:
        kill_tree_now(proc)
        pumps.cancel()
        raise
    finally:
        t_out.close()
        t_err.close()
    code = proc.returncode or 0
    return ToolOutcome(
        out.text("stdout"),
        is_error=code != 0,
        stderr=_join(err.text("stderr"), note),
        exit_code=code,
    )


async def _finish(pumps: asyncio.Future[Any]) -> None:
    """Stop reading: the pipes are closed or their writers killed."""
    try:
        await asyncio.wait_for(pumps, EXIT_GRACE_S)
    except (TimeoutError, asyncio.CancelledError):
        pumps.cancel()
    with contextlib.suppress(BaseException):
        await pumps


def _join(*parts: str) -> str:
    return "\n".join(p.rstrip("\n") for p in parts if p)
