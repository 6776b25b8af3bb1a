"""One turn of an agent that is a child process reading nothing and writing lines
(the ``subprocess`` NDJSON adapter, ``aider``): start, read stdout line by line, keep the
tail of stderr, say how it ended in one line, kill its whole tree when the turn stops.

Context for the turn goes in as temporary files named on the command line
(``milk-ctx-*.txt``), removed when the turn ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import tempfile
from collections import deque
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from milk_tui.agents.base import AgentError, AgentEvent, AgentRequest, ChatMessage
from milk_tui.agents.process_io import clean_stderr, drain_tail, read_lines, spawn
from milk_tui.agents.process_tree import kill_tree
from milk_tui.agents.redact import Redactor
from milk_tui.agents.wire_log import WireLog
from milk_tui.config.settings import AgentConfig


class ChildRun:
    """A started child; iterate ``lines()``, then ``finish()`` for its exit status."""

    def __init__(self, name: str, argv: list[str], *, cwd: str, env: dict[str, str]) -> None:
        self.name, self.argv, self.cwd, self.env = name, argv, cwd, env
        self.proc: asyncio.subprocess.Process | None = None
        self._tail: deque[bytes] = deque()
        self._stderr_task: asyncio.Task[None] | None = None
        self.files: list[str] = []

    def context_file(self, text: str) -> str:
        fd, path = tempfile.mkstemp(prefix="milk-ctx-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        self.files.append(path)
        return path

    async def start(self) -> None:
        self.proc = await spawn(
            self.name, self.argv, cwd=self.cwd, env=self.env, stdin=asyncio.subprocess.DEVNULL
        )
        assert self.proc.stderr is not None
        self._stderr_task = asyncio.create_task(drain_tail(self.proc.stderr, self._tail))

    def lines(self) -> AsyncIterator[bytes]:
        assert self.proc is not None and self.proc.stdout is not None
        return read_lines(self.proc.stdout)

    async def finish(self) -> tuple[int, str]:
        """(exit status, the cleaned tail of stderr) once stdout has ended."""
        assert self.proc is not None
        rc = await self.proc.wait()
        if self._stderr_task is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stderr_task, 5.0)
        return rc, clean_stderr(b"".join(self._tail))

    def exit_error(self, rc: int, stderr: str) -> AgentError:
        """The one line for a child that failed: its stderr, a signal, or its status."""
        prog = os.path.basename(self.argv[0])
        if rc < 0:
            try:
                sig = signal.Signals(-rc).name
            except ValueError:
                sig = str(-rc)
            why = f"{prog} was killed by signal {-rc} ({sig})"
        else:
            why = f"{prog} exited with code {rc}"
        last = stderr.splitlines()[-1] if stderr else ""
        return AgentError(f"{self.name}: {why}" + (f": {last}" if last else ""), agent=self.name)

    async def close(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            await kill_tree(self.proc)
        if self._stderr_task is not None and not self._stderr_task.done():
            self._stderr_task.cancel()
        for path in self.files:
            with contextlib.suppress(OSError):
                os.unlink(path)


def resolve_bin(configured: str, default: str) -> str:
    """The program to run: ``~`` expanded, a bare name looked up on PATH."""
    b = os.path.expanduser(configured or default)
    return b if os.sep in b else (shutil.which(b) or b)


def render_messages(messages: list[ChatMessage]) -> str:
    """The history as text for a stateless program: one ``[role]`` block per message."""
    return "\n\n".join(f"[{m.role}]\n{m.content}" for m in messages if m.content)


async def run_child_turn(
    name: str,
    request: AgentRequest,
    *,
    env: dict[str, str],
    argv_for: Callable[[list[str]], list[str]],
    feed: Callable[[bytes], list[AgentEvent]],
    wire: WireLog | None,
) -> AsyncIterator[AgentEvent]:
    """One turn: the system prompt and the pinned blocks + history as two context files,
    ``argv_for(files)`` started, each stdout line ``feed`` into events; a failed exit is
    one AgentError; the process tree and the files are gone when this ends."""
    child = ChildRun(name, [], cwd=request.cwd, env=env)
    try:
        static = request.system_prompt or request.append_system_prompt
        texts = (static, render_messages(request.messages))
        child.argv = argv_for([child.context_file(t) for t in texts if t.strip()])
        await child.start()
        async for line in child.lines():
            if wire:
                wire.data(line if line.endswith(b"\n") else line + b"\n")
            for ev in feed(line):
                yield ev
        rc, stderr = await child.finish()
        if rc != 0:
            raise child.exit_error(rc, stderr)
    finally:
        await child.close()
        if wire:
            wire.flush()


class ChildAgent:
    """What every child-process agent shares: its config, the agent protocol's plumbing,
    and ``child_turn``; a subclass says how to start it and read its lines."""

    default_bin = ""

    def __init__(self, config: AgentConfig, *, debug_log: Path | None = None) -> None:
        self.config = config
        self.name = config.name
        self.model = config.model or config.name
        self._wire = WireLog(debug_log, self.name, Redactor(config.api_key)) if debug_log else None

    async def aclose(self) -> None:
        return None

    def stream(self, request: AgentRequest) -> AsyncIterator[AgentEvent]:
        return self._run(request)

    def _run(self, request: AgentRequest) -> AsyncIterator[AgentEvent]:
        raise NotImplementedError

    def _binary(self) -> str:
        return resolve_bin(self.config.bin, self.default_bin)

    def _environment(self) -> dict[str, str]:
        return dict(os.environ)

    def child_turn(
        self,
        request: AgentRequest,
        argv_for: Callable[[list[str]], list[str]],
        feed: Callable[[bytes], list[AgentEvent]],
    ) -> AsyncIterator[AgentEvent]:
        return run_child_turn(
            self.name,
            request,
            env=self._environment(),
            argv_for=argv_for,
            feed=feed,
            wire=self._wire,
        )
