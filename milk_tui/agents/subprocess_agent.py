"""An agent that is a program speaking the subprocess NDJSON protocol (provider
``subprocess``, the milk-smolagent adapter): one process per turn, stateless.

The adapter keeps no conversation, so every turn hands it what an HTTP agent would get:
the system prompt as one context file, and the pinned blocks plus the trimmed history as
a second one (``--append-system-prompt-file`` each), then the prompt after ``--``.  It runs
its own tools (smolagents code steps); they show as ``python`` tool calls and results but
do not pass through milk's permission check — the adapter is trusted like any program
the user configured.  The wire protocol is in ``agents/subprocess_events.py``.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator

from milk_tui.agents.base import AgentError, AgentEvent, AgentRequest, Finished
from milk_tui.agents.child_process import ChildAgent
from milk_tui.agents.process_io import exits_zero
from milk_tui.agents.subprocess_events import NdjsonParser
from milk_tui.agents.wire_shape import WireShapeError

_STRIPPED_ENV = ("CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_ENTRYPOINT", "CLAUDECODE")


class SubprocessAgent(ChildAgent):
    """Agent protocol over an NDJSON adapter process (provider ``subprocess``)."""

    async def available(self) -> bool:
        return bool(self.config.bin) and await exits_zero(
            [self._binary(), "--help"], self._environment()
        )

    def _environment(self) -> dict[str, str]:
        return {k: v for k, v in os.environ.items() if k not in _STRIPPED_ENV}

    def build_argv(self, request: AgentRequest, session_id: str, files: list[str]) -> list[str]:
        """The exact command line (public so tests can pin it)."""
        c = self.config
        argv = [self._binary(), "--model-type", c.model_type]
        for flag, value in (
            ("--model-id", c.model),
            ("--api-base", c.url),
            ("--api-key", c.api_key),
        ):
            if value:
                argv += [flag, value]
        argv += ["--action-type", c.action_type]
        if c.smolagent_tools:
            argv += ["--tools", ",".join(c.smolagent_tools)]
        if c.authorized_imports:
            argv += ["--authorized-imports", ",".join(c.authorized_imports)]
        argv += ["--max-steps", str(c.max_steps), "--session-id", session_id]
        for f in files:
            argv += ["--append-system-prompt-file", f]
        return [*argv, "--", request.prompt]

    async def _run(self, request: AgentRequest) -> AsyncIterator[AgentEvent]:
        if not self.config.bin:
            raise AgentError(
                f"{self.name}: provider 'subprocess' needs 'bin' (the adapter program to run)",
                agent=self.name,
            )
        session_id = str(uuid.uuid4())
        parser = NdjsonParser(self.model)

        def feed(line: bytes) -> list[AgentEvent]:
            try:
                return parser.feed(line)
            except WireShapeError as e:
                msg = f"{self.name}: malformed NDJSON line: {e}"
                raise AgentError(msg, agent=self.name) from None

        async for ev in self.child_turn(
            request,
            lambda files: self.build_argv(request, session_id, files),
            feed,
        ):
            yield ev
        if parser.result is not None and parser.result.is_error:
            why = parser.result.error or "the adapter reported an error"
            raise AgentError(f"{self.name}: {why}", agent=self.name)
        yield Finished(stop_reason="end_turn")
