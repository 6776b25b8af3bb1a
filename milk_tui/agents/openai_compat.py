"""The primary agent over any OpenAI-compatible chat-completions server (llama.cpp, Ollama,
vLLM, OpenRouter …): streaming SSE, auth, and the local tool loop (reference agents §2.5–2.6,
§2.10; core §2.8).

It only normalises the wire into AgentEvents (ADR-0038): no session, database or bus here.
The repeated-prompt guard runs in the dispatcher before this agent is called.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx

from milk_tui.agents.base import (
    AgentError,
    AgentEvent,
    AgentRequest,
    ChatMessage,
    Finished,
    Slot,
    TextChunk,
    ToolBox,
    ToolCallEvent,
    ToolOutcome,
    ToolResultEvent,
    UsageEvent,
)
from milk_tui.agents.openai_sse import (
    SSEBackendError,
    SSEFormatError,
    SSEParser,
    ToolCall,
    normalise_usage,
)
from milk_tui.agents.openai_wire import (
    SENSITIVE_HEADERS,
    Redactor,
    TokenCommand,
    WireLog,
    backend_message,
)
from milk_tui.config.settings import DEFAULT_MAX_TOOL_ITERATIONS, AgentConfig

AVAILABILITY_TIMEOUT_SECS = 1.0
"""A reachability probe must not delay start-up noticeably (issue 2)."""
CONNECT_TIMEOUT_SECS = 10.0
PASSTHROUGH_KEYS = ("temperature", "top_p", "max_tokens", "seed", "stop")
"""Optional sampling keys copied from the agent's config entry into each request."""
TRAIL_ARGS_CHARS = 200
TRAIL_RESULT_CHARS = 300
"""Reference agents §2.5: the empty-answer tool-trail digest cuts args/results here."""
RETRYABLE_STATUS = {408, 429, 500, 502, 503, 504}


class OpenAICompatAgent:
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
        self.max_tool_iterations = (
            max_tool_iterations if max_tool_iterations > 0 else DEFAULT_MAX_TOOL_ITERATIONS
        )
        self.tool_timeout = tool_timeout
        path = config.chat_path or "/v1/chat/completions"
        self.chat_url = config.url + (path if path.startswith("/") else "/" + path)
        self._redact = Redactor()
        self._redact.add(config.api_key)
        for k, v in config.headers.items():
            if k.lower() in SENSITIVE_HEADERS:
                self._redact.add(v)
        self._token_cmd = (
            TokenCommand(config.token_cmd, self.name, self._redact) if config.token_cmd else None
        )
        self._wire = WireLog(debug_log, self.name, self._redact) if debug_log else None
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        extra = config.model_extra or {}
        self._extra_body = {k: extra[k] for k in PASSTHROUGH_KEYS if k in extra}

    # ----- plumbing ------------------------------------------------------------------------

    def _http(self) -> httpx.AsyncClient:
        """One pooled client per event loop (pytest gives each test its own loop)."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            t = self.config.timeout_secs or None
            self._client = httpx.AsyncClient(
                transport=self._transport,
                verify=not self.config.tls_skip_verify,
                timeout=httpx.Timeout(
                    t, connect=min(t or CONNECT_TIMEOUT_SECS, CONNECT_TIMEOUT_SECS)
                ),
            )
            self._client_loop = loop
        return self._client

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None and self._client_loop is asyncio.get_running_loop():
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

    def _err(
        self, message: str, *, status: int | None = None, retryable: bool = False
    ) -> AgentError:
        return AgentError(
            self._redact(f"agent '{self.name}': {message}"),
            agent=self.name,
            status=status,
            retryable=retryable,
        )

    async def available(self) -> bool:
        """Any HTTP answer means reachable (reference agents §2.2); transport errors do not."""
        try:
            await self._http().get(
                self.config.url + "/v1/models",
                headers=dict(self.config.headers),
                timeout=AVAILABILITY_TIMEOUT_SECS,
            )
            return True
        except httpx.HTTPError:
            return False

    # ----- the turn ------------------------------------------------------------------------

    def _request_body(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> bytes:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if tools:
            body["tools"] = tools
        body.update(self._extra_body)
        return json.dumps(body, ensure_ascii=False).encode()

    async def stream(self, request: AgentRequest) -> AsyncIterator[AgentEvent]:
        messages: list[dict[str, Any]] = []
        if request.system_prompt:
            messages.append({"role": "system", "content": request.system_prompt})
        messages += [_wire_message(m) for m in request.messages]
        messages.append({"role": "user", "content": request.prompt})
        tools = [
            {
                "type": "function",
                "function": {
                    "name": s.name,
                    "description": s.description,
                    "parameters": s.parameters,
                },
            }
            for s in (request.tools.specs() if request.tools else [])
        ]
        executed: set[tuple[str, str]] = set()
        trail: list[tuple[ToolCall, ToolOutcome]] = []
        wire = self._wire
        for _ in range(self.max_tool_iterations):
            parser = SSEParser()
            feed = parser.feed
            # The HTTP read loop is inlined here (not a nested generator): it is the per-chunk
            # hot path of the 1.15× budget and every generator layer costs per event.
            try:
                async with self._open(self._request_body(messages, tools)) as resp:
                    plain = resp.headers.get("content-encoding", "identity") == "identity"
                    async for data in resp.aiter_raw() if plain else resp.aiter_bytes():
                        if wire:
                            wire.data(data)
                        for ev in feed(data):
                            yield ev
                        if parser.done:
                            break
                    for ev in parser.close():
                        yield ev
            except (SSEFormatError, SSEBackendError, httpx.HTTPError) as e:
                raise self._stream_error(e) from None
            if not parser.complete:
                if wire:
                    wire.note("stream ended before [DONE] / finish_reason")
                raise self._err(
                    "stream ended unexpectedly (no [DONE] or finish_reason)", retryable=True
                )
            if parser.usage:
                fresh, completion, cached = normalise_usage(parser.usage)
                yield UsageEvent(self.model, fresh, completion, cache_read=cached)
            calls = parser.tool_calls()
            text = parser.text
            if not calls:
                if not text:
                    # Reference §11.6: a reasoning-only answer becomes the answer.
                    if parser.reasoning.strip():
                        yield TextChunk(parser.reasoning)
                        yield Finished(
                            stop_reason=parser.finish_reason or "stop", reasoning_promoted=True
                        )
                        return
                    if trail:
                        yield TextChunk(_trail_digest(trail))
                yield Finished(stop_reason=parser.finish_reason or "stop")
                return
            keys = [(c.name, c.arguments) for c in calls]
            if all(k in executed for k in keys):
                # The model repeats itself: end the turn normally (reference §2.5), not an error.
                if not text and trail:
                    yield TextChunk(_trail_digest(trail))
                yield Finished(stop_reason="repeated_tool_calls")
                return
            executed.update(keys)
            for c in calls:
                yield ToolCallEvent(c.id, c.name, c.arguments)
            messages.append(
                {
                    "role": "assistant",
                    "content": text or None,
                    "tool_calls": [_wire_call(c) for c in calls],
                }
            )
            outcomes = await asyncio.gather(*(self._run_tool(request.tools, c) for c in calls))
            for c, o in zip(calls, outcomes, strict=True):
                yield ToolResultEvent(c.id, c.name, o.content, o.is_error)
                trail.append((c, o))
                messages.append({"role": "tool", "tool_call_id": c.id, "content": _envelope(o)})
                if o.escalate_reason:
                    yield Finished(stop_reason="escalate", escalation_reason=o.escalate_reason)
                    return
        raise self._err(f"exceeded maximum tool iterations ({self.max_tool_iterations})")

    async def _run_tool(self, tools: ToolBox | None, call: ToolCall) -> ToolOutcome:
        if tools is None:
            return ToolOutcome(f"tool {call.name!r} is not available", is_error=True)
        try:
            if self.tool_timeout:
                return await asyncio.wait_for(
                    tools.call(call.name, call.arguments), self.tool_timeout
                )
            return await tools.call(call.name, call.arguments)
        except TimeoutError:
            return ToolOutcome(
                f'tool "{call.name}" timed out after {self.tool_timeout:g}s', is_error=True
            )
        except Exception as e:  # a broken tool is reported to the model, not fatal
            return ToolOutcome(f"tool {call.name!r} failed: {type(e).__name__}: {e}", is_error=True)

    # ----- one completion --------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _open(self, body: bytes) -> AsyncIterator[httpx.Response]:
        """POST one completion and hand back a 200 response, or raise a worded AgentError.

        A 401/403 with ``token_cmd`` re-runs the command and retries once (reference agents
        §2.1); if the refresh fails the original status is the error.
        """
        client = self._http()
        wire = self._wire
        for attempt in (0, 1):
            headers = await self._headers()
            if wire:
                wire.request("POST", self.chat_url, headers, body)
            try:
                async with client.stream(
                    "POST", self.chat_url, content=body, headers=headers
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
                raise self._transport_error(e) from None
            if attempt == 0 and status in (401, 403) and self._token_cmd:
                if await self._refresh_token_ok():
                    continue
            raise self._err(
                f"HTTP {status}: {backend_message(raw)}",
                status=status,
                retryable=status in RETRYABLE_STATUS,
            )

    def _stream_error(self, e: Exception) -> AgentError:
        if isinstance(e, SSEFormatError):
            return self._err(f"malformed SSE chunk from backend: {e}")
        if isinstance(e, SSEBackendError):
            return self._err(f"backend error in stream: {e}")
        assert isinstance(e, httpx.HTTPError)
        return self._transport_error(e)

    def _transport_error(self, e: httpx.HTTPError) -> AgentError:
        if isinstance(e, httpx.ConnectTimeout):
            return self._err_unreachable("connect timed out")
        if isinstance(e, httpx.ConnectError):
            return self._err_unreachable(_reason(e))
        if isinstance(e, httpx.TimeoutException):
            return self._err(
                f"no response from {self.config.url} for "
                f"{self.config.timeout_secs:g}s (timeout_secs)",
                retryable=True,
            )
        if isinstance(e, httpx.RemoteProtocolError | httpx.ReadError):
            return self._err(f"stream ended unexpectedly ({_reason(e)})", retryable=True)
        return self._err(f"HTTP transport error: {_reason(e)}")

    def _err_unreachable(self, why: str) -> AgentError:
        return AgentError(
            self._redact(f"agent '{self.name}' unreachable at {self.config.url} ({why})"),
            agent=self.name,
            retryable=True,
            unreachable=True,
        )

    async def _refresh_token_ok(self) -> bool:
        """Re-run token_cmd after a 401/403; False keeps the original status as the error."""
        assert self._token_cmd is not None
        try:
            await self._token_cmd.get(refresh=True)
            return True
        except AgentError:
            return False


# ----- wire helpers ------------------------------------------------------------------------


def _wire_message(m: ChatMessage) -> dict[str, Any]:
    d: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.tool_calls:
        d["tool_calls"] = m.tool_calls
        if not m.content:
            d["content"] = None
    if m.tool_call_id:
        d["tool_call_id"] = m.tool_call_id
    if m.name:
        d["name"] = m.name
    return d


def _wire_call(c: ToolCall) -> dict[str, Any]:
    """Echo a call back to the server.  Unparseable arguments are sent as ``{}`` because
    servers that re-parse history (llama.cpp's templates) would fail the whole request; the
    model still learns what went wrong from the error result that follows."""
    args = c.arguments or "{}"
    try:
        json.loads(args)
    except ValueError:
        args = "{}"
    return {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": args}}


def _envelope(o: ToolOutcome) -> str:
    """Reference agents §2.10: built-in results travel as {"output"} / {"error"} JSON."""
    return json.dumps(
        {"error": o.content} if o.is_error else {"output": o.content}, ensure_ascii=False
    )


def _trail_digest(trail: list[tuple[ToolCall, ToolOutcome]]) -> str:
    """Reference agents §2.5: an answer-less turn shows what the tools did instead of nothing."""
    lines = ["[the model ended its turn without a summary; tool activity:]"]
    for call, outcome in trail:
        lines.append(f"- {call.name}({_cut(call.arguments, TRAIL_ARGS_CHARS)})")
        lines.append(f"  → {_cut(outcome.content, TRAIL_RESULT_CHARS)}")
    return "\n".join(lines)


def _cut(s: str, n: int) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[:n] + "…"


def _reason(e: Exception) -> str:
    return str(e) or type(e).__name__
