"""An agent over any OpenAI-compatible chat-completions server (llama.cpp, Ollama, vLLM,
OpenRouter …): one streamed completion per tool-loop round, auth, error wording.

It only turns the wire into AgentEvents: no session, database or bus here.  The tool loop
itself is ``agents.tool_loop``; this module opens one round of it (a streamed completion) and
hands the loop the response bytes and an ``SSEParser``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import certifi
import httpx

from milk_tui.agents import openai_wire as wire_fmt
from milk_tui.agents.base import (
    AgentError,
    AgentEvent,
    AgentRequest,
    Slot,
    ToolSpec,
    UsageEvent,
)
from milk_tui.agents.credential_cmd import CredentialCommand
from milk_tui.agents.openai_errors import AgentErrors
from milk_tui.agents.openai_sse import (
    SSEBackendError,
    SSEFormatError,
    SSEIncompleteError,
    SSEParser,
)
from milk_tui.agents.read_ahead import read_ahead
from milk_tui.agents.redact import Redactor
from milk_tui.agents.round_backend import RoundParser, RoundResult, ToolRun
from milk_tui.agents.text_call_round import TextCallRound
from milk_tui.agents.tool_loop import LoopSettings, ToolLoop
from milk_tui.agents.verdict import Verdict
from milk_tui.agents.wire_log import WireLog
from milk_tui.config.settings import DEFAULT_MAX_TOOL_ITERATIONS, SAMPLING_KEYS, AgentConfig

AVAILABILITY_TIMEOUT_SECS = 1.0
"""A reachability probe must not delay start-up noticeably."""
CONNECT_TIMEOUT_SECS = 10.0
KEEPALIVE_SECS = 120.0
"""How long an idle pooled connection is kept (httpx's default is 5 s): the one opened at
launch should still be there when the user has typed the first prompt."""
BODY_END_WAIT_S = 0.02
"""How long a round that saw its end waits for the rest of the body (a server sends the
last HTTP chunk right after ``[DONE]``); after that the connection is closed instead."""
TOKEN_CMD_TIMEOUT_SECS = 30.0
"""A credential helper that takes longer is hung; failing beats a frozen turn."""
PASSTHROUGH_KEYS = SAMPLING_KEYS
"""Optional sampling keys copied from the agent's config entry into each request."""
RETRYABLE_STATUS = {408, 429, 500, 502, 503, 504}


@dataclass(slots=True)
class ChatConversation:
    """One turn's request state in chat-completions form."""

    messages: list[wire_fmt.Message]
    tools: list[dict[str, Any]]
    text_call_format: str = ""
    """The format of the calls the model just wrote as text ("" for native calls)."""
    on_wire: Callable[[], None] | None = None
    """The request's ``on_wire``, until the first round's body is written."""


class OpenAICompatAgent:
    parser_class: type[SSEParser] = SSEParser
    """The stream's parser (``OpenAIResponsesAgent`` reads Responses API events)."""

    def __init__(
        self,
        config: AgentConfig,
        *,
        slot: Slot = "primary",
        max_tool_iterations: int = DEFAULT_MAX_TOOL_ITERATIONS,
        tool_timeout: float | None = 120.0,
        debug_log: Path | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.config = config
        self.name = config.name
        self.model = config.model or config.name
        self.slot = slot
        self.loop_settings = LoopSettings(
            max_iterations=max_tool_iterations, tool_timeout=tool_timeout
        )
        path = config.chat_path or "/v1/chat/completions"
        self.chat_url = config.url + (path if path.startswith("/") else "/" + path)
        self._redact = Redactor(config.api_key)
        self._redact.add_headers(config.headers)
        self._errors = AgentErrors(self.name, config, self._redact)
        self._token_cmd = (
            CredentialCommand(
                config.token_cmd,
                setting="token_cmd",
                who=f"agent '{self.name}'",
                agent=self.name,
                redact=self._redact,
                timeout=TOKEN_CMD_TIMEOUT_SECS,
            )
            if config.token_cmd
            else None
        )
        self._wire = WireLog(debug_log, self.name, self._redact) if debug_log else None
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        self._extra_body = {k: v for k in PASSTHROUGH_KEYS if (v := getattr(config, k)) is not None}
        self.verdict_unconstrained = False
        """The server refused a grammar/logprobs verdict once: ask in free text from then on."""
        self.read_slice_s: float | None = None
        """Set by an interactive front end: the longest the body's reader holds the event
        loop (``read_ahead``); None while nothing else waits on the loop."""
        self.text_call_format = ""
        """The format of tool calls this model wrote as text, once seen: preferred from
        then on, other formats stay text (docs/adr/0012-text-tool-calls-and-loop-detection.md)."""

    # ----- Agent protocol ------------------------------------------------------------------

    def stream(self, request: AgentRequest) -> AsyncIterator[AgentEvent]:
        return ToolLoop(self, self.loop_settings).run(request)

    supports_verdict = True
    """Chat completions carry a grammar-constrained verdict (agents/openai_verdict.py)."""

    async def verdict(
        self,
        prompt: str,
        choices: tuple[str, ...],
        on_usage: Callable[[UsageEvent], None] | None = None,
    ) -> Verdict:
        """The router's one-word question, constrained to ``choices`` where the server can."""
        from milk_tui.agents.openai_verdict import ask_verdict  # it imports this module

        return await ask_verdict(self, prompt, choices, on_usage)

    async def answer_in_form(self, prompt: str, grammar: str, max_tokens: int) -> str | None:
        """A short answer constrained to a GBNF ``grammar``; None when the server refuses
        grammars (ask in free text then)."""
        from milk_tui.agents.openai_verdict import answer_in_form  # it imports this module

        return await answer_in_form(self, prompt, grammar, max_tokens)

    def sampling_body(self) -> dict[str, Any]:
        return dict(self._extra_body)

    async def request_headers(self) -> dict[str, str]:
        return await self._headers()

    def http(self) -> httpx.AsyncClient:
        return self._http()

    def transport_error(self, e: httpx.HTTPError) -> AgentError:
        return self._errors.transport(e)

    async def available(self) -> bool:
        """Any HTTP answer means reachable; only transport errors mean down."""
        try:
            await self._http().get(
                self.config.url + "/v1/models",
                headers=dict(self.config.headers),
                timeout=AVAILABILITY_TIMEOUT_SECS,
            )
            return True
        except httpx.HTTPError:
            return False

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None and self._client_loop is asyncio.get_running_loop():
            await client.aclose()

    # ----- one round (the RoundBackend protocol) ------------------------------------------

    def start_turn(self, request: AgentRequest, tools: list[ToolSpec]) -> ChatConversation:
        messages, specs = wire_fmt.initial_messages(request), wire_fmt.wire_tools(tools)
        return ChatConversation(messages, specs, on_wire=request.on_wire)

    def add_assistant_turn(self, conv: ChatConversation, result: RoundResult) -> None:
        conv.messages.append(wire_fmt.assistant_turn(result))
        conv.text_call_format = result.text_call_format

    def add_tool_results(self, conv: ChatConversation, runs: list[ToolRun]) -> None:
        if conv.text_call_format:
            conv.messages.append(wire_fmt.text_call_results(runs, conv.text_call_format))
        else:
            conv.messages += wire_fmt.tool_result_messages(runs)

    def error(self, message: str) -> AgentError:
        return self._errors.err(message)

    @contextlib.asynccontextmanager
    async def open_round(
        self, conv: ChatConversation
    ) -> AsyncIterator[tuple[AsyncIterator[bytes], RoundParser]]:
        body = self._round_body(conv)
        on_wire, conv.on_wire = conv.on_wire, None
        try:
            async with self._open(body, on_wire) as resp:
                plain = resp.headers.get("content-encoding", "identity") == "identity"
                # aiter_raw skips httpx's decoder layer; the request asked for identity.
                source = resp.aiter_raw() if plain else resp.aiter_bytes()
                if self._wire:
                    source = _logged(source, self._wire)
                async with contextlib.aclosing(read_ahead(source, self.read_slice_s)) as ahead:
                    yield ahead, self._round_parser(conv)
                    # The round ended at [DONE]: read the body's end too (it follows at
                    # once), so the connection is kept for the next turn, not closed.
                    with contextlib.suppress(TimeoutError, httpx.HTTPError):
                        async with asyncio.timeout(BODY_END_WAIT_S):
                            async for _ in ahead:
                                pass
        except SSEIncompleteError as e:
            if self._wire:
                self._wire.note("stream ended before [DONE] / finish_reason")
            raise self._errors.err(str(e), retryable=True) from None
        except (SSEFormatError, SSEBackendError, httpx.HTTPError) as e:
            raise self._errors.stream(e) from None
        finally:
            if self._wire:
                self._wire.flush()  # the records held back for redaction

    def _round_body(self, conv: ChatConversation) -> bytes:
        """The request of one round (the Responses agent sends its own format)."""
        return wire_fmt.request_body(self.model, conv.messages, conv.tools, self._extra_body)

    def _round_parser(self, conv: ChatConversation) -> RoundParser:
        """The stream's parser; calls the model writes as text are found in its text."""
        parser: RoundParser = self.parser_class(self.model)
        if conv.tools:
            parser = TextCallRound(
                parser,
                self._tool_names(conv),
                prefer=self.text_call_format,
                on_format=self._remember_format,
            )
        return parser

    @staticmethod
    def _tool_names(conv: ChatConversation) -> list[str]:
        return [t["function"]["name"] for t in conv.tools]

    def _remember_format(self, fmt: str) -> None:
        self.text_call_format = fmt

    # ----- HTTP plumbing -------------------------------------------------------------------

    def _http(self) -> httpx.AsyncClient:
        """One pooled client per event loop (pytest gives each test its own loop)."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            self._client, self._client_loop = self._new_client(), loop
        return self._client

    def _new_client(self) -> httpx.AsyncClient:
        t = self.config.timeout_secs or None
        return httpx.AsyncClient(
            transport=self._transport,
            verify=tls_verify(self.config),
            timeout=httpx.Timeout(t, connect=min(t or CONNECT_TIMEOUT_SECS, CONNECT_TIMEOUT_SECS)),
            limits=httpx.Limits(keepalive_expiry=KEEPALIVE_SECS),
        )

    async def preconnect(self) -> None:
        """Make the client in a thread (loading the CA bundle takes tens of ms) so the first
        request does not; the caller's availability probe then opens the connection."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            client = await asyncio.to_thread(self._new_client)
            if self._client is None or self._client_loop is not loop:
                self._client, self._client_loop = client, loop
            else:  # a request made one meanwhile
                await client.aclose()

    async def _headers(self) -> dict[str, str]:
        # identity: a compressed SSE stream gets buffered by gzip (latency), and an
        # uncompressed one can be read with aiter_raw (one layer less per chunk).
        h = {
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
            "Accept-Encoding": "identity",
        }
        h.update(self.config.headers)
        # The auth layer is applied last, so it overrides an Authorization in `headers`.
        if self._token_cmd is not None:
            h["Authorization"] = "Bearer " + await self._token_cmd.get()
        elif self.config.uses_bearer and self.config.api_key:
            h["Authorization"] = "Bearer " + self.config.api_key
        return h

    @contextlib.asynccontextmanager
    async def _open(
        self, body: bytes, on_wire: Callable[[], None] | None = None
    ) -> AsyncIterator[httpx.Response]:
        """POST one completion and hand back a 200 response, or raise a worded AgentError.

        A 401/403 with ``token_cmd`` re-runs the command and retries once; if the refresh
        fails the original status is the error.  ``on_wire`` is called once the body is
        written, before the response is waited for (httpcore's ``trace`` extension:
        https://www.encode.io/httpcore/extensions/#trace).
        """
        client = self._http()
        wire = self._wire
        extensions = {"trace": _body_written(on_wire)} if on_wire is not None else None
        for attempt in (0, 1):
            headers = await self._headers()
            if wire:
                wire.request("POST", self.chat_url, headers, body)
            try:
                async with client.stream(
                    "POST", self.chat_url, content=body, headers=headers, extensions=extensions
                ) as resp:
                    status = resp.status_code
                    if wire:
                        wire.response(status)
                    if status == 200:
                        yield resp
                        return
                    raw = await resp.aread()
                    if wire:
                        wire.data(raw + b"\n")
            except httpx.HTTPError as e:
                raise self._errors.transport(e) from None
            if attempt == 0 and status in (401, 403) and await self._refresh_token_ok():
                continue
            raise self._errors.err(
                f"HTTP {status}: {wire_fmt.backend_message(raw)}",
                status=status,
                retryable=status in RETRYABLE_STATUS,
            )

    async def _refresh_token_ok(self) -> bool:
        """Re-run token_cmd after a 401/403; False keeps the original status as the error."""
        if self._token_cmd is None:
            return False
        try:
            await self._token_cmd.get(refresh=True)
            return True
        except AgentError:
            return False


def _body_written(on_wire: Callable[[], None]) -> Callable[[str, object], Awaitable[None]]:
    """A ``trace`` callback that calls ``on_wire`` once, when a request body is sent."""
    called = False

    async def trace(name: str, info: object) -> None:
        nonlocal called
        if not called and name.endswith("send_request_body.complete"):
            called = True
            on_wire()

    return trace


async def _logged(source: AsyncIterator[bytes], wire: WireLog) -> AsyncIterator[bytes]:
    """The response bytes, each written to the wire log first (only with ``--debug``)."""
    async for data in source:
        wire.data(data)
        yield data


def tls_verify(config: AgentConfig) -> bool | ssl.SSLContext:
    """What httpx verifies the server with: nothing (``tls_skip_verify``), the default CA
    bundle, or that bundle plus the agent's ``tls_ca_cert`` PEM file.  A file that cannot
    be loaded leaves the default (named once at start-up by config/agent_keys.py)."""
    if config.tls_skip_verify:
        return False
    if not config.tls_ca_cert:
        return True
    try:
        ctx = ssl.create_default_context(cafile=certifi.where())
        ctx.load_verify_locations(cafile=os.path.expanduser(config.tls_ca_cert))
    except (OSError, ssl.SSLError):
        return True
    return ctx
