"""Reading an agent's child process (the Claude CLI, subprocess and aider agents): starting it
in its own process group, its stdout as lines with a size cap, and the tail of its stderr."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Sequence

from milk_tui.agents.base import AgentError
from milk_tui.agents.process_tree import kill_tree_now

MAX_LINE_BYTES = 10 * 1024 * 1024
"""A stdout line longer than this is skipped whole (a huge tool result), not fatal."""
STDERR_TAIL_BYTES = 4096
"""How much of a child's stderr is kept to explain its exit."""
PROBE_TIMEOUT_S = 15.0
"""A CLI's ``--version`` on a cold disk (node start-up) can take seconds."""


async def spawn(
    name: str, argv: Sequence[str], *, cwd: str | None, env: dict[str, str], stdin: int
) -> asyncio.subprocess.Process:
    """Start ``argv`` in a new session (its tree can be killed as one), stdout and stderr
    piped; one ``AgentError`` naming agent and program when it cannot start."""
    try:
        return await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd or None,
            env=env,
            stdin=stdin,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            limit=MAX_LINE_BYTES + 1024,
        )
    except OSError as e:
        raise AgentError(f"{name}: cannot start {argv[0]}: {e.strerror or e}", agent=name) from e


async def read_lines(stream: asyncio.StreamReader) -> AsyncIterator[bytes]:
    """Lines up to MAX_LINE_BYTES; a longer line is skipped whole instead of killing the turn."""
    while True:
        try:
            line = await stream.readuntil(b"\n")
        except asyncio.IncompleteReadError as e:
            if e.partial:
                yield e.partial
            return
        except asyncio.LimitOverrunError as e:
            await stream.readexactly(e.consumed)
            await _skip_rest_of_line(stream)
            continue
        yield line


async def _skip_rest_of_line(stream: asyncio.StreamReader) -> None:
    while True:
        try:
            await stream.readuntil(b"\n")
            return
        except asyncio.IncompleteReadError:
            return
        except asyncio.LimitOverrunError as e:
            await stream.readexactly(e.consumed)


async def drain_tail(stream: asyncio.StreamReader, tail: deque[bytes]) -> None:
    size = 0
    while chunk := await stream.read(65536):
        tail.append(chunk)
        size += len(chunk)
        while size > STDERR_TAIL_BYTES and len(tail) > 1:
            size -= len(tail.popleft())


def clean_stderr(raw: bytes, noise: str = "") -> str:
    """The last ``STDERR_TAIL_BYTES`` of a child's stderr as text, blank lines and lines
    holding ``noise`` (a harmless message a CLI always prints) left out."""
    text = raw[-STDERR_TAIL_BYTES:].decode("utf-8", errors="replace")
    lines = [ln for ln in text.splitlines() if ln.strip() and not (noise and noise in ln)]
    return "\n".join(lines).strip()


async def exits_zero(argv: list[str], env: dict[str, str]) -> bool:
    """The availability probe of a CLI agent: ``argv`` (``<bin> --version`` or ``--help``)
    runs and exits 0 within ``PROBE_TIMEOUT_S``."""
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            env=env,
            start_new_session=True,  # its own process group: kill_tree_now signals groups
        )
    except OSError:
        return False
    try:
        return await asyncio.wait_for(proc.wait(), PROBE_TIMEOUT_S) == 0
    except TimeoutError:
        kill_tree_now(proc)
        return False
    except asyncio.CancelledError:  # Ctrl+C during the check: no probe left running
        kill_tree_now(proc)
        raise
