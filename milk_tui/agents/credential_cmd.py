"""Credential helpers: run a configured command (``token_cmd``, ``aws_refresh_cmd``) and
take its standard output as a secret.

One runner for every backend: a bounded wait, the child killed on timeout or cancel, the
output registered with the backend's ``Redactor`` before anything else sees it, and one
error wording (``<who>: <setting> `<program>` failed (exit N)``).  A failing command's
output is never quoted: a ``token_cmd`` may print its token before failing, or print it to
stderr, and neither is known as a secret yet; only ``quote_stderr`` (``aws_refresh_cmd``,
whose secret is JSON on stdout and whose stderr says why, e.g. "sso login required") adds
the first stderr line, masked.
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
from dataclasses import dataclass, field

from milk_tui.agents.base import AgentError
from milk_tui.agents.process_tree import kill_tree_now
from milk_tui.agents.redact import Redactor

STDERR_EXCERPT_CHARS = 200
PROGRAM_CHARS = 60
KILL_WAIT_S = 2.0
"""After SIGKILL the exit is immediate; this only bounds a wait on an unkillable child."""


@dataclass(eq=False, repr=False)
class CredentialCommand:
    """One configured command.  ``shell`` runs it with ``sh -c``; otherwise it is split like a
    shell would split it and run without one (``aws_refresh_cmd`` is defined that way)."""

    command: str
    setting: str
    """The config key, as errors name it (``token_cmd``)."""
    who: str
    """How errors name the agent (``agent 'llama'``)."""
    agent: str
    redact: Redactor
    timeout: float
    shell: bool = True
    quote_stderr: bool = False
    _cached: str = field(default="", init=False, repr=False)
    _lock: asyncio.Lock | None = field(default=None, init=False, repr=False)

    async def get(self, *, refresh: bool = False) -> str:
        """The cached output, running the command on first use or when ``refresh``."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if refresh or not self._cached:
                self._cached = await self.run()
            return self._cached

    async def run(self) -> str:
        """Run once; the trimmed stdout (already registered as a secret), or AgentError."""
        proc = await self._start()
        try:
            out, err = await asyncio.wait_for(proc.communicate(), self.timeout)
        except TimeoutError:
            await _kill(proc)
            raise self._error(f"timed out after {self.timeout:g}s") from None
        except asyncio.CancelledError:
            await _kill(proc)
            raise
        text = out.decode(errors="replace").strip()
        self.redact.add(text)
        for line in text.splitlines():  # a token printed above a warning is still masked
            self.redact.add(line.strip())
        if proc.returncode != 0:
            why = (
                _first_line(self.redact(err.decode(errors="replace"))) if self.quote_stderr else ""
            )
            failed = f"`{self._program()}` failed (exit {proc.returncode})"
            raise self._error(failed + (f": {why}" if why else ""))
        if not text:
            raise self._error("empty output", sep=": ")
        return text

    async def _start(self) -> asyncio.subprocess.Process:
        null, pipe = asyncio.subprocess.DEVNULL, asyncio.subprocess.PIPE
        try:
            if self.shell:
                return await asyncio.create_subprocess_shell(
                    self.command, stdin=null, stdout=pipe, stderr=pipe, start_new_session=True
                )
            argv = shlex.split(self.command)
            return await asyncio.create_subprocess_exec(*argv, stdin=null, stdout=pipe, stderr=pipe)
        except (OSError, ValueError) as e:
            reason = getattr(e, "strerror", None) or str(e)
            raise self._error(f"could not start: {reason}") from None

    def _program(self) -> str:
        """The command's first word, as the failure names it (masked: ``KEY=v cmd``)."""
        try:
            words = shlex.split(self.command)
        except ValueError:
            words = self.command.split()
        return self.redact((words or ["?"])[0][:PROGRAM_CHARS])

    def _error(self, what: str, *, sep: str = " ") -> AgentError:
        return AgentError(f"{self.who}: {self.setting}{sep}{what}", agent=self.agent)


async def _kill(proc: asyncio.subprocess.Process) -> None:
    """Kill the command's whole process group: a child it left behind (``sh -c`` forks)
    would otherwise hold our pipes open and keep the wait going."""
    if proc.returncode is None:
        kill_tree_now(proc)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), KILL_WAIT_S)


def _first_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[0][:STDERR_EXCERPT_CHARS] if lines else ""
