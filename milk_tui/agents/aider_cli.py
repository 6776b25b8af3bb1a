"""aider as an agent (provider ``aider-cli``): one ``aider --message`` process per turn.

aider prints plain text, not a protocol, so the reply is its stdout line by line, minus
its banner and rule lines; a diff header ``+++ path`` becomes an ``edit`` tool call with its
result, so the transcript shows which files it changed.  aider edits files itself and
does not ask milk's permission check, like any program the user configured; commits are
left to the user (``--no-auto-commits``).  Context goes in as read-only files
(``--read``), and files named in the prompt that exist are added for editing (``--file``).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

from milk_tui.agents.base import (
    AgentEvent,
    AgentRequest,
    Finished,
    TextChunk,
    ToolCallEvent,
    ToolResultEvent,
)
from milk_tui.agents.child_process import ChildRun, exits_zero
from milk_tui.agents.redact import Redactor
from milk_tui.agents.subprocess_agent import render_messages
from milk_tui.agents.wire_log import WireLog
from milk_tui.config.settings import AgentConfig

BASE_ARGS = (
    "--yes-always", "--no-pretty", "--no-auto-commits", "--edit-format", "diff",
)  # fmt: skip
TUNING_ARGS = (
    "--map-tokens", "2048", "--max-chat-history-tokens", "4096", "--map-refresh", "files",
    "--no-show-model-warnings",
)  # fmt: skip
_STRIPPED_ENV = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "CLAUDE_CODE_SESSION_ID", "CLAUDECODE")
"""A key from the parent must not pick aider's model behind the config's back."""

EDIT_TOOL = "edit"


def in_git_repo(cwd: str) -> bool:
    p = Path(cwd).resolve()
    return any((d / ".git").exists() for d in (p, *p.parents))


def files_in_prompt(prompt: str, cwd: str) -> list[str]:
    """Words of the prompt that name existing files under ``cwd`` (in order, once each)."""
    out: list[str] = []
    for word in prompt.split():
        w = word.strip("`'\",;:()[]{}<>").rstrip(".!?")
        if w and w not in out and os.path.isfile(os.path.join(cwd, w)):
            out.append(w)
    return out


class AiderLines:
    """aider's stdout lines → agent events."""

    def __init__(self) -> None:
        self.edits = 0

    def feed(self, raw: bytes) -> list[AgentEvent]:
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if line.startswith(("─", "Aider v")) or line.startswith("--- "):
            return []
        if line.startswith("+++ "):
            path = line[4:].strip().removeprefix("b/")
            self.edits += 1
            call_id = f"aider-edit-{self.edits}"
            return [
                ToolCallEvent(call_id, EDIT_TOOL, json.dumps({"path": path})),
                ToolResultEvent(call_id, EDIT_TOOL, f"✎ {path}"),
            ]
        return [TextChunk(line + "\n")]


class AiderCliAgent:
    """Agent protocol over the aider command line (provider ``aider-cli``)."""

    def __init__(self, config: AgentConfig, *, debug_log: Path | None = None) -> None:
        self.config = config
        self.name = config.name
        self.model = config.model or config.name
        self._wire = WireLog(debug_log, self.name, Redactor(config.api_key)) if debug_log else None

    async def available(self) -> bool:
        return await exits_zero([self._binary(), "--version"], self._environment())

    async def aclose(self) -> None:
        return None

    def stream(self, request: AgentRequest) -> AsyncIterator[AgentEvent]:
        return self._run(request)

    def _binary(self) -> str:
        b = os.path.expanduser(self.config.bin or "aider")
        return b if os.sep in b else (shutil.which(b) or b)

    def _environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in _STRIPPED_ENV}
        if self.config.api_key:
            env["OPENAI_API_KEY"] = self.config.api_key
        return env

    def build_argv(self, request: AgentRequest, context_files: list[str]) -> list[str]:
        """The exact command line (public so tests can pin it)."""
        c = self.config
        argv = [self._binary(), *BASE_ARGS]
        if c.model:
            argv += ["--model", c.model]
        if c.url:
            argv += ["--openai-api-base", c.url]
        if request.cwd and not in_git_repo(request.cwd):
            argv.append("--no-git")
        argv += [*TUNING_ARGS, *c.extra_args]
        for f in context_files:
            argv += ["--read", f]
        for f in files_in_prompt(request.prompt, request.cwd or "."):
            argv += ["--file", f]
        return [*argv, "--message", request.prompt]

    async def _run(self, request: AgentRequest) -> AsyncIterator[AgentEvent]:
        child = ChildRun(self.name, [], cwd=request.cwd, env=self._environment())
        try:
            static = request.system_prompt or request.append_system_prompt
            dynamic = render_messages(request.messages)
            files = [child.context_file(t) for t in (static, dynamic) if t.strip()]
            child.argv = self.build_argv(request, files)
            await child.start()
            lines = AiderLines()
            async for raw in child.lines():
                if self._wire:
                    self._wire.data(raw if raw.endswith(b"\n") else raw + b"\n")
                for ev in lines.feed(raw):
                    yield ev
            rc, stderr = await child.finish()
            if rc != 0:
                raise child.exit_error(rc, stderr)
            yield Finished(stop_reason="end_turn")
        finally:
            await child.close()
            if self._wire:
                self._wire.flush()
