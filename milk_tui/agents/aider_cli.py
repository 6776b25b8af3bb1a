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
from milk_tui.agents.child_process import ChildAgent
from milk_tui.agents.process_io import exits_zero

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


class AiderCliAgent(ChildAgent):
    """Agent protocol over the aider command line (provider ``aider-cli``)."""

    default_bin = "aider"

    async def available(self) -> bool:
        return await exits_zero([self._binary(), "--version"], self._environment())

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
        async for ev in self.child_turn(
            request,
            lambda files: self.build_argv(request, files),
            AiderLines().feed,
        ):
            yield ev
        yield Finished(stop_reason="end_turn")
