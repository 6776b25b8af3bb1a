"""One MCP server: started in the background, kept open, restarted with back-off.

The SDK's transports and ``ClientSession`` are anyio context managers that must be entered
and left in one task, so each server lives in its own task (``_run``); tool calls from the
turn's tasks only send on its session.  A server that fails to start, dies or times out
goes ``down`` with one warning naming it (``on_warning``) and is retried after a growing
pause; while down its tools are simply not offered.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from milk_tui.agents.mcp.auth import HeaderAuth
from milk_tui.agents.mcp.failures import Attempt, bad_line, closed, describe, innermost
from milk_tui.agents.mcp.limits import bound_server_tools
from milk_tui.agents.mcp.server_log import ServerLog, StderrPipe, start_line
from milk_tui.agents.mcp.transports import open_transport
from milk_tui.agents.redact import Redactor
from milk_tui.config.mcp import McpServerConfig

State = Literal["disabled", "starting", "ready", "down", "needs_auth"]

BACKOFF_FIRST_S = 2.0
BACKOFF_MAX_S = 300.0
STOP_WAIT_S = 5.0
"""The SDK gives a stdio server 2 s to exit after its stdin closes, then 2 s after SIGTERM."""
STDERR_SETTLE_S = 1.0
"""How long a failure waits for the log thread to read an exited server's last words."""
AUTH_WAIT_S = 300.0
"""How long an explicit OAuth sign-in may take (a person in a browser)."""


class McpCallError(Exception):
    """A call that did not reach a result; the message names the server."""


class McpConnection:
    def __init__(
        self,
        cfg: McpServerConfig,
        *,
        log_file: Path,
        cwd: str,
        on_warning: Callable[[str], None],
        redact: Redactor,
        token_file: Path | None = None,
        open_url: Callable[[str], None] | None = None,
    ) -> None:
        self.cfg = cfg
        self.token_file = token_file or log_file.with_suffix(".token.json")
        self.open_url = open_url
        """Shows the user an OAuth authorization page (an explicit ``authenticate`` only)."""
        self._authenticating = False
        self.name = cfg.name
        self.state: State = "starting" if cfg.enabled else "disabled"
        self.error = ""
        self.tools: list[Any] = []
        """``mcp.types.Tool`` of a ready server (replaced whole on ``list_changed``)."""
        self.generation = 0
        """Bumped each time the tool list changes (tool boxes compare it)."""
        self._log = ServerLog(log_file, redact)
        self._pipe: StderrPipe | None = None
        """The stderr pipe of the current start of a stdio server."""
        self._limits_said = ""
        self._limit = cfg.start_timeout
        self._phase = "connect"
        """What the start waits for: ``connect``, ``initialize`` or ``tools/list``."""
        self._cwd = cwd
        self._warn = on_warning
        self._redact = redact
        self._auth = HeaderAuth(cfg, redact)
        self._session: Any = None
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._settled = asyncio.Event()
        self._refresh = False
        self._restart = False
        self._closing = False
        self._warned = False
        self._bad_output = ""
        self._attempt = 0
        self._http_status = 0
        self._auth_failed = False
        self._transport = cfg.transport
        """``http`` falls back to the older ``sse`` when the server does not know it."""

    @property
    def transport(self) -> str:
        """The transport in use: ``sse`` once an ``http`` server turned out to speak it."""
        return self._transport

    @property
    def log_file(self) -> Path:
        return self._log.path

    # ----- lifetime -----------------------------------------------------------------

    def start(self) -> None:
        """Start (or keep) the background task; needs a running event loop."""
        if self._task is not None and not self._task.done():
            return
        if not self.cfg.enabled:
            self.state = "disabled"
            self._settled.set()
            return
        self._closing = False
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"mcp:{self.name}")

    def reconnect(self) -> None:
        """Drop the session and start again now (also ends a back-off pause)."""
        self._attempt = 0
        self._restart = True
        self._wake.set()
        self.start()

    def authenticate(self) -> None:
        """Connect again; an OAuth server may now send the user to sign in."""
        self._authenticating = self.cfg.auth == "oauth" and self.open_url is not None
        self._settled.clear()
        self._warned = False
        self.reconnect()

    async def stop(self) -> None:
        self._closing = True
        self._wake.set()
        task, self._task = self._task, None
        if task is not None:
            if self.state == "starting":
                task.cancel()  # waiting on the server, not on us: the SDK still stops it
            try:
                await asyncio.wait_for(asyncio.shield(task), STOP_WAIT_S)
            except (TimeoutError, asyncio.CancelledError):
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        self._log.close()

    async def wait_settled(self, timeout: float | None) -> None:
        """Until the first start attempt ended (ready, down, needs auth) or ``timeout``."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._settled.wait(), timeout)

    async def _run(self) -> None:
        await asyncio.to_thread(_load_sdk)  # ~0.3 s of imports: never on the UI's loop
        while not self._closing:
            self._set_state("starting")
            self._restart = False
            try:
                await self._serve()
            except asyncio.CancelledError:
                raise
            except BaseException as e:  # noqa: BLE001 — anyio groups; the server is named
                if self._restart:
                    continue
                if self.state in ("starting", "ready"):  # else already said, before shutdown
                    self._fail(self._describe(e))
            if self._closing:
                break
            if self._restart:
                continue
            pause = min(BACKOFF_FIRST_S * 2**self._attempt, BACKOFF_MAX_S)
            self._attempt += 1
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), pause)
        self._session = None

    async def _serve(self) -> None:
        from mcp import ClientSession

        self._bad_output, self._http_status = "", 0
        limit = AUTH_WAIT_S if self._authenticating else self.cfg.start_timeout
        self._limit, self._phase = limit, "connect"
        self._pipe = None
        # One deadline for the whole start: the token command, opening the transport (an
        # SSE server that never sends its endpoint waits here), initialize and tools/list.
        deadline = asyncio.get_running_loop().time() + limit
        async with asyncio.timeout_at(deadline) as opening, contextlib.AsyncExitStack() as stack:
            headers = await self._auth.headers(refresh=self._attempt > 0)
            auth = None
            if self.cfg.auth == "oauth" and self.cfg.is_http:
                from milk_tui.agents.mcp import oauth

                opener = self.open_url if self._authenticating else None
                auth, callback = await oauth.provider(self.cfg, self.token_file, open_url=opener)
                if callback is not None:
                    stack.callback(callback.close)
            self._log.note(start_line(self.name))
            errlog = None
            if self._transport == "stdio":
                self._pipe = pipe = self._log.capture()
                stack.callback(pipe.close_ours)
                errlog = pipe.errlog
            read, write = await stack.enter_async_context(
                open_transport(
                    self.cfg,
                    headers,
                    errlog,
                    self._cwd,
                    transport=self._transport,
                    on_status=self._heard_status,
                    auth=auth,
                )
            )
            if self._pipe is not None:
                self._pipe.close_ours()  # the child has its own copy: its exit ends the log
            session = await stack.enter_async_context(
                ClientSession(read, write, message_handler=self._on_message)
            )
            opening.reschedule(None)  # from here a miss is said at once, not after leaving
            try:
                async with asyncio.timeout_at(deadline):
                    self._phase = "initialize"
                    await session.initialize()
                    self._phase = "tools/list"
                    tools = await _list_tools(session)
                self._authenticating = False
            except Exception as e:
                self._authenticating = False
                if self._transport == "http" and self._http_status in (404, 405):
                    self._transport = "sse"  # a server of the older HTTP+SSE transport
                    self._restart = True
                    raise
                await self._fail_after_stderr(e)  # now: leaving may wait for the process
                raise
            self._session, self._attempt = session, 0
            self._take_tools(tools)
            self._warned = False
            self.error = ""
            self._set_state("ready")
            await self._idle(session)
            self._session = None

    def _take_tools(self, tools: list[Any]) -> None:
        """A new list, within the bounds of ``limits.py`` (a cut is said once)."""
        bounded = bound_server_tools(self.name, tools)
        self.tools = bounded.tools
        self.generation += 1
        if bounded.notice and bounded.notice != self._limits_said:
            self._warn(bounded.notice)
        self._limits_said = bounded.notice

    async def _fail_after_stderr(self, e: BaseException) -> None:
        """``_fail`` with the reason; when the process exited, its last stderr line is
        waited for a moment first (the log thread may not have read it yet)."""
        pipe = self._pipe
        if pipe is not None and closed(innermost(e)):
            await asyncio.to_thread(pipe.wait_done, STDERR_SETTLE_S)
        self._fail(self._describe(e))

    async def _idle(self, session: Any) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self._closing or self._restart or self._session is None:
                return  # no session: a call found the server gone (``call``)
            if self._refresh:
                self._refresh = False
                async with asyncio.timeout(self.cfg.start_timeout):
                    tools = await _list_tools(session)
                self._take_tools(tools)

    # ----- calls --------------------------------------------------------------------

    async def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        """The ``CallToolResult``; ``McpCallError`` when the server is gone or too slow."""
        session = self._session
        if session is None or self.state != "ready":
            raise McpCallError(f"mcp server '{self.name}' is {self.state}: {self.error}")
        timeout = self.cfg.call_timeout
        try:
            async with asyncio.timeout(timeout):
                return await session.call_tool(tool, arguments)
        except TimeoutError:
            why = f"tool {tool!r} did not answer within {timeout:g}s"
            self._fail(why)
            self._wake.set()  # the serving task drops the session and backs off
            raise McpCallError(f"mcp server '{self.name}': {why}") from None
        except Exception as e:
            from mcp import MCPError
            from mcp_types import CONNECTION_CLOSED

            if isinstance(e, MCPError) and e.code != CONNECTION_CLOSED:
                raise McpCallError(f"mcp server '{self.name}': {e.message}") from None
            why = self._describe(e)
            self._fail(why)
            self._wake.set()
            raise McpCallError(f"mcp server '{self.name}': {why}") from None

    # ----- state and messages -------------------------------------------------------

    def _heard_status(self, status: int) -> None:
        self._http_status = self._http_status or status

    async def _on_message(self, message: Any) -> None:
        from mcp_types import ToolListChangedNotification

        if isinstance(message, Exception):
            if not self._bad_output:
                self._bad_output = bad_line(message)
            return
        if isinstance(message, ToolListChangedNotification):
            self._refresh = True
            self._wake.set()

    def _set_state(self, state: State) -> None:
        self.state = state
        if state != "starting":
            self._settled.set()

    def _fail(self, why: str) -> None:
        self._session = None
        self.tools = []
        self.generation += 1
        self.error = why
        needs_auth = self._http_status in (401, 403) or "token_cmd" in why or self._auth_failed
        self._auth_failed = False
        self._set_state("needs_auth" if needs_auth and self.cfg.is_http else "down")
        if not self._warned:
            self._warned = True
            status = "needs auth" if self.state == "needs_auth" else "is down"
            self._warn(f"mcp server '{self.name}' {status}: {why}")

    def _describe(self, e: BaseException) -> str:
        why, auth_failed = describe(
            e,
            Attempt(
                self.cfg,
                self._transport,
                self._phase,
                self._limit,
                self._http_status,
                self._bad_output,
                self._stderr_tail(),
            ),
        )
        self._auth_failed = self._auth_failed or auth_failed
        return self._redact(why)

    def _stderr_tail(self) -> str:
        return self._pipe.last_line if self._pipe is not None else ""


def _load_sdk() -> None:
    import mcp_types  # noqa: F401


async def _list_tools(session: Any) -> list[Any]:
    from mcp_types import PaginatedRequestParams

    tools: list[Any] = []
    cursor: str | None = None
    while True:
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        result = await session.list_tools(params=params)
        tools.extend(result.tools)
        cursor = result.next_cursor
        if not cursor:
            return tools


def log_name(server: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in server) + ".log"
