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
import shutil
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

from milk_tui.agents.base import AgentError, AgentEvent, AgentRequest, ChatMessage, Finished
from milk_tui.agents.child_process import ChildRun, exits_zero
from milk_tui.agents.redact import Redactor
from milk_tui.agents.subprocess_events import NdjsonParser
from milk_tui.agents.wire_log import WireLog
from milk_tui.agents.wire_shape import WireShapeError
from milk_tui.config.settings import AgentConfig

_STRIPPED_ENV = ("CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_ENTRYPOINT", "CLAUDECODE")


def render_messages(messages: list[ChatMessage]) -> str:
    """The history as text: one block per message, labelled with its role."""
    return "\n\n".join(f"[{m.role}]\n{m.content}" for m in messages if m.content)


class SubprocessAgent:
    """Agent protocol over an NDJSON adapter process (provider ``subprocess``)."""

    def __init__(self, config: AgentConfig, *, debug_log: Path | None = None) -> None:
        self.config = config
        self.name = config.name
        self.model = config.model or config.name
        self._wire = WireLog(debug_log, self.name, Redactor(config.api_key)) if debug_log else None

    async def available(self) -> bool:
        return bool(self.config.bin) and await exits_zero(
            [self._binary(), "--help"], self._environment()
        )

    async def aclose(self) -> None:
        return None

    def stream(self, request: AgentRequest) -> AsyncIterator[AgentEvent]:
        return self._run(request)

    def _binary(self) -> str:
        b = os.path.expanduser(self.config.bin)
        return b if os.sep in b else (shutil.which(b) or b)

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
        child = ChildRun(self.name, [], cwd=request.cwd, env=self._environment())
        try:
            static = request.system_prompt or request.append_system_prompt
            dynamic = render_messages(request.messages)
            files = [child.context_file(t) for t in (static, dynamic) if t.strip()]
            child.argv = self.build_argv(request, session_id, files)
            await child.start()
            parser = NdjsonParser(self.model)
            async for line in child.lines():
                if self._wire:
                    self._wire.data(line if line.endswith(b"\n") else line + b"\n")
                try:
                    events = parser.feed(line)
                except WireShapeError as e:
                    raise AgentError(
                        f"{self.name}: malformed NDJSON line: {e}", agent=self.name
                    ) from None
                for ev in events:
                    yield ev
            rc, stderr = await child.finish()
            if rc != 0:
                raise child.exit_error(rc, stderr)
            if parser.result is not None and parser.result.is_error:
                why = parser.result.error or "the adapter reported an error"
                raise AgentError(f"{self.name}: {why}", agent=self.name)
            yield Finished(stop_reason="end_turn")
        finally:
            await child.close()
            if self._wire:
                self._wire.flush()
