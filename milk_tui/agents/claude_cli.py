"""The Claude Code CLI as the escalation agent: one ``claude --print`` process per turn.

Why the prompt goes in as a stream-json user message on stdin (``--input-format
stream-json``) rather than after ``--``: the permission protocol (``--permission-prompt-tool
stdio``) needs stdin open for ``control_response`` lines, and with a plain-text prompt on
the command line the 2.1.x CLI waits 3 s for stdin and then fails every permission request
with "Stream closed" (verified against the real CLI).  One channel for both avoids that,
and it also keeps the prompt clear of the variadic ``--allowedTools`` / ``--add-dir``
flags, which would otherwise swallow it as one more value.

Each turn runs in its own process group; cancelling signals that group and every group
its descendants created (the CLI puts Bash tools in their own session), see process_tree.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import tempfile
import uuid
from collections import deque
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from milk_tui.agents.base import (
    AgentError,
    AgentEvent,
    AgentRequest,
    Finished,
    SessionNotFound,
    ToolResultEvent,
)
from milk_tui.agents.claude_control import answer_control, denials
from milk_tui.agents.claude_project import project_trust
from milk_tui.agents.claude_stream import SESSION_NOT_FOUND_TEXT, StreamJsonParser
from milk_tui.agents.mcp import claude_config as mcp_config
from milk_tui.agents.process_io import clean_stderr, drain_tail, exits_zero, read_lines, spawn
from milk_tui.agents.process_tree import kill_tree
from milk_tui.agents.redact import Redactor
from milk_tui.agents.wire_log import WireLog
from milk_tui.agents.wire_shape import WireShapeError
from milk_tui.config.mcp import McpServerConfig
from milk_tui.config.paths import permissions_dir
from milk_tui.config.project_trust import TrustStore
from milk_tui.config.settings import AgentConfig
from milk_tui.model.attachment import prompt_parts

EXIT_WAIT_S = 10.0
"""After the result line the CLI only saves its session file; this bounds a hung exit."""

BASELINE_TOOLS = ("Bash", "Read", "Write", "Edit")
"""Allowed on every run that asks for permissions, with the working folder and the temp
dir added (``--add-dir``): the everyday tools run without a question, and a Bash or file
tool never hits the CLI's directory-trust refusal inside them
(docs/adr/0020-claude-permissions-ask-once.md)."""

_STRIPPED_ENV = ("CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_ENTRYPOINT", "CLAUDECODE")
"""Variables that would make the child think it is nested in a parent Claude session."""

_STDERR_NOISE = "no stdin data received"

_SECRET_ENV = re.compile(r"(?i)(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)")
"""Environment names whose values the debug log and error texts must never show (a Bash
tool running ``env`` would otherwise put ANTHROPIC_API_KEY into a tool result)."""


class ClaudeCliAgent:
    """Agent protocol over the Claude Code CLI (provider ``claude-cli``)."""

    def __init__(
        self,
        config: AgentConfig,
        *,
        env: dict[str, str] | None = None,
        debug_log: Path | None = None,
        mcp_servers: Sequence[McpServerConfig] = (),
    ) -> None:
        self.config = config
        self.mcp_servers = list(mcp_servers)
        self.name = config.name
        self.model = config.model or config.name
        self._env_overrides = dict(env or {})
        self._available: bool | None = None
        self._redact = Redactor(
            *(v for k, v in self._environment().items() if _SECRET_ENV.search(k))
        )
        self._wire = WireLog(debug_log, self.name, self._redact) if debug_log else None

    # ----- Agent protocol ------------------------------------------------------------

    async def available(self) -> bool:
        if self._available is None:
            self._available = await exits_zero([self._binary(), "--version"], self._environment())
        return self._available

    async def aclose(self) -> None:
        return None

    def stream(self, request: AgentRequest) -> AsyncIterator[AgentEvent]:
        return self._run(request)

    # ----- process plumbing ----------------------------------------------------------

    def _binary(self) -> str:
        b = self.config.bin or "claude"
        if os.sep in b:
            return b
        return shutil.which(b) or b

    def _environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in _STRIPPED_ENV}
        env.update(self._env_overrides)
        return env

    def build_argv(
        self, request: AgentRequest, session_id: str, context_file: str | None
    ) -> list[str]:
        """The exact command line (public so tests can pin it)."""
        cfg = self.config
        argv = [
            self._binary(),
            "--print",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-partial-messages",
            "--input-format",
            "stream-json",
        ]
        tools = list(cfg.allowed_tools)
        dirs = list(cfg.add_dirs)
        trust = project_trust(request.cwd, TrustStore(permissions_dir())) if request.cwd else None
        if cfg.dangerously_skip_permissions:
            argv.append("--dangerously-skip-permissions")
        else:
            argv += ["--permission-prompt-tool", "stdio"]
            # The folder's rules milk stored or the user trusted (claude_project).
            stored = trust.rules if trust else ()
            tools = [*BASELINE_TOOLS, *tools, *(r for r in stored if "," not in r)]
            dirs += [request.cwd, tempfile.gettempdir()]
        if trust and not trust.load_project_settings:
            argv += ["--setting-sources", "user"]  # the folder's own settings never load
        if trust and trust.strict_mcp:
            argv.append("--strict-mcp-config")  # nor its .mcp.json servers
        # milk's own servers change only milk's state: their tools need no question
        tools += [f"mcp__{s.name}" for s in request.own_mcp_servers]
        tools = list(dict.fromkeys(t for t in tools if t))
        if tools:
            argv += ["--allowedTools", ",".join(tools)]
        for d in dict.fromkeys(d for d in dirs if d):
            argv += ["--add-dir", d]
        if request.resume_session_id:
            argv += ["--resume", request.resume_session_id]
        else:
            argv += ["--session-id", session_id]
        if context_file:
            argv += ["--append-system-prompt-file", context_file]
        return argv

    async def _run(self, request: AgentRequest) -> AsyncIterator[AgentEvent]:
        session_id = request.resume_session_id or str(uuid.uuid4())
        context_file = _write_context(request.append_system_prompt)
        settings_file = _write_settings(self.config.settings)
        servers = [*self.mcp_servers, *request.own_mcp_servers]
        own = [s.name for s in request.own_mcp_servers]
        mcp_file = await mcp_config.write_mcp_config(servers, self._redact, wait_for=own)
        proc: asyncio.subprocess.Process | None = None
        stderr_task: asyncio.Task[None] | None = None
        stderr_tail: deque[bytes] = deque()
        try:
            argv = self.build_argv(request, session_id, context_file)
            argv += mcp_config.mcp_config_argv(mcp_file)
            argv += ["--settings", settings_file] if settings_file else []
            argv += self.config.extra_args  # last: the user's own flags win
            proc = await spawn(
                self.name,
                argv,
                cwd=request.cwd,
                env=self._environment(),
                stdin=asyncio.subprocess.PIPE,
            )
            assert proc.stdin and proc.stdout and proc.stderr
            stderr_task = asyncio.create_task(drain_tail(proc.stderr, stderr_tail))
            await _write_line(
                proc.stdin,
                {"type": "user", "message": {"role": "user", "content": _user_content(request)}},
            )
            if request.on_wire is not None:
                request.on_wire()

            parser = StreamJsonParser(self.model)
            rules_by_call: dict[str, tuple[str, ...]] = {}
            async for line in read_lines(proc.stdout):
                if self._wire:
                    self._wire.data(line if line.endswith(b"\n") else line + b"\n")
                try:
                    events = parser.feed(line)
                except _SHAPE_FAULTS as e:  # a field of the wrong type
                    why = str(e) if isinstance(e, WireShapeError) else f"{type(e).__name__}: {e}"
                    msg = f"{self.name}: malformed stream-json line: {why}"
                    raise AgentError(msg, agent=self.name) from None
                for ev in events:
                    if isinstance(ev, ToolResultEvent):
                        # Known values only: a Bash `env` must not show a key, but the
                        # pattern rules would mangle ordinary output such as `token = x`.
                        ev.content = self._redact.values(ev.content)
                    yield ev
                while parser.pending_control:
                    reply = await answer_control(
                        self.name, parser.pending_control.pop(0), request, rules_by_call
                    )
                    await _write_line(proc.stdin, reply)
                if parser.result is not None:
                    # The turn is over: stream-json input would wait for more otherwise.
                    # Stop reading too, in case a tool's background child holds stdout.
                    proc.stdin.close()
                    break
            rc = await _wait_exit(proc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stderr_task, EXIT_WAIT_S)
            self._finish_or_raise(parser, rc, b"".join(stderr_tail), request)
            live = parser.session_id or session_id
            yield Finished(
                stop_reason=parser.result.stop_reason if parser.result else "",
                session_id=live,
                permission_denials=denials(parser.result, rules_by_call),
            )
        finally:
            if proc is not None and proc.returncode is None:
                await kill_tree(proc)
            if stderr_task is not None and not stderr_task.done():
                stderr_task.cancel()
            mcp_config.remove(mcp_file)
            for path in (context_file, settings_file):
                if path:
                    with contextlib.suppress(OSError):
                        os.unlink(path)
            if self._wire:
                self._wire.flush()  # lines held back for redaction (a key across deltas)

    def _finish_or_raise(
        self, parser: StreamJsonParser, rc: int, stderr: bytes, request: AgentRequest
    ) -> None:
        res = parser.result
        err_text = clean_stderr(stderr, _STDERR_NOISE)
        if res is not None and not res.is_error and rc == 0:
            return
        message = (res.error_text() if res is not None and res.is_error else "") or err_text
        if SESSION_NOT_FOUND_TEXT in message or SESSION_NOT_FOUND_TEXT in err_text:
            raise SessionNotFound(
                f"{self.name}: no conversation found with session ID {request.resume_session_id}",
                agent=self.name,
            )
        if not message:
            message = (
                f"claude exited with code {rc} and no result"
                if res is None
                else f"claude returned an error response (exit code {rc})"
            )
        status = res.api_error_status if res is not None else None
        raise AgentError(
            f"{self.name}: {self._redact(message)}",
            agent=self.name,
            status=status,
            retryable=status in (429, 500, 529),
        )


# ----- helpers ------------------------------------------------------------------------


def _write_context(text: str) -> str | None:
    if not text:
        return None
    fd, path = tempfile.mkstemp(prefix="milk-ctx-", suffix=".txt")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def _write_settings(settings: dict[str, Any] | None) -> str | None:
    """The agent's ``settings`` object as a private temp file for ``--settings``."""
    if settings is None:
        return None
    fd, path = tempfile.mkstemp(prefix="milk-settings-", suffix=".json")  # mode 0600
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(settings, f)
    return path


_SHAPE_FAULTS = (WireShapeError, AttributeError, TypeError, ValueError, KeyError, ArithmeticError)


def _user_content(request: AgentRequest) -> str | list[dict[str, Any]]:
    """The prompt (text files appended); images as Messages-API ``image`` blocks with a
    base64 source, which the CLI's stream-json input passes to the model as they are — no
    temporary file to write and remove (docs/adr/0027-attachments.md)."""
    text, images = prompt_parts(request.prompt, request.attachments, images=request.images)
    if not images:
        return text
    sources = [{"type": "base64", "media_type": a.info.mime, "data": a.base64()} for a in images]
    return [{"type": "text", "text": text}, *({"type": "image", "source": s} for s in sources)]


async def _write_line(stdin: asyncio.StreamWriter, obj: dict[str, Any]) -> None:
    if stdin.is_closing():
        return
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stdin.write((json.dumps(obj) + "\n").encode())
        await stdin.drain()


async def _wait_exit(proc: asyncio.subprocess.Process) -> int:
    try:
        return await asyncio.wait_for(proc.wait(), EXIT_WAIT_S)
    except TimeoutError:
        await kill_tree(proc)
        return proc.returncode if proc.returncode is not None else -1
