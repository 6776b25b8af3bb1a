"""AWS Bedrock agent: boto3 ``converse_stream``, one call per tool-loop round.

boto3 is imported lazily (cold start) and its event iterator is blocking, so each model
call runs in a daemon worker thread (``thread_stream``); cancelling the turn shuts the HTTP
socket down from the event loop, which unblocks the worker at once.  Request shaping lives
in ``bedrock_wire``, event parsing in ``bedrock_events``, credentials in ``bedrock_auth``;
the tool loop itself is ``agents.tool_loop``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing, asynccontextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from milk_tui.agents import bedrock_wire as wire_fmt
from milk_tui.agents.base import AgentError, AgentEvent, AgentRequest, ToolSpec, UsageEvent
from milk_tui.agents.bedrock_auth import BedrockAuth, resolve_region
from milk_tui.agents.bedrock_events import ConverseStreamParser, converse_usage
from milk_tui.agents.round_backend import RoundResult, ToolRun
from milk_tui.agents.thread_stream import iterate_in_thread
from milk_tui.agents.tool_loop import LoopSettings, ToolLoop
from milk_tui.agents.wire_log import WireLog
from milk_tui.agents.wire_shape import WireShapeError
from milk_tui.config.settings import DEFAULT_MAX_TOOL_ITERATIONS, AgentConfig

RETRYABLE_CODES = {
    "throttlingException",
    "ThrottlingException",
    "serviceUnavailableException",
    "ServiceUnavailableException",
    "internalServerException",
    "InternalServerException",
}
"""Bedrock's transient error shapes (ConverseStream output union + HTTP error codes)."""

CONNECT_TIMEOUT_S = 10.0
"""A loopback or regional endpoint that takes longer than this to accept is down."""


@dataclass(slots=True)
class ConverseConversation:
    """One turn's request state: the ``converse_stream`` keyword arguments."""

    kwargs: dict[str, Any]
    tools_enabled: bool
    refreshed: bool = False
    """``aws_refresh_cmd`` already ran this turn: a second denial is the error."""
    on_wire: Callable[[], None] | None = None
    """The request's ``on_wire``, until the first round's call starts."""


class BedrockAgent:
    def __init__(
        self,
        config: AgentConfig,
        *,
        debug_log: Path | None = None,
        max_tool_iterations: int = 0,
        tool_timeout: float | None = 120.0,
    ) -> None:
        self.config = config
        self.name = config.name
        self.model = config.model
        self._auth = BedrockAuth(config)
        self._client: Any = None
        self._client_generation = -1
        self._wire = WireLog(debug_log, self.name, self._auth.redact) if debug_log else None
        per_agent = config.limits.max_tool_iterations
        if max_tool_iterations <= 0:
            max_tool_iterations = per_agent if per_agent and per_agent > 0 else 0
        self.loop_settings = LoopSettings(
            max_iterations=max_tool_iterations or DEFAULT_MAX_TOOL_ITERATIONS,
            tool_timeout=tool_timeout,
        )

    # ----- Agent protocol ---------------------------------------------------------

    unavailable_reason = "no AWS credentials found"
    """What ``available() == False`` means for this agent (shown by the degradation notice)."""

    async def available(self) -> bool:
        """Credentials resolvable — no network call (the AvailabilityCache adds the TTL)."""
        return await asyncio.to_thread(self._auth.resolvable)

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None and hasattr(client, "close"):
            client.close()

    def stream(self, request: AgentRequest) -> AsyncIterator[AgentEvent]:
        return ToolLoop(self, self.loop_settings).run(request)

    async def complete(
        self, prompt: str, *, system: str = "", on_usage: Callable[[UsageEvent], None] | None = None
    ) -> str:
        """One non-streaming ``converse`` call → its text (the router's classifier uses it);
        ``on_usage`` gets the tokens it spent."""
        kwargs: dict[str, Any] = {
            "modelId": self.model,
            "messages": wire_fmt.append_prompt([], prompt),
        }
        if system:
            kwargs["system"] = [{"text": system}]
        client = await asyncio.to_thread(self._get_client)
        try:
            resp = await asyncio.to_thread(lambda: client.converse(**kwargs))
        except Exception as e:
            raise self._error(e) from None
        if on_usage is not None and isinstance(u := resp.get("usage"), dict):
            on_usage(converse_usage(self.model, u))
        blocks = resp.get("output", {}).get("message", {}).get("content", [])
        return next((b["text"] for b in blocks if "text" in b), "")

    # ----- one round (the RoundBackend protocol) ------------------------------------

    def start_turn(self, request: AgentRequest, tools: list[ToolSpec]) -> ConverseConversation:
        system, rest = wire_fmt.split_system(request.system_prompt, request.messages)
        messages = wire_fmt.append_prompt(
            wire_fmt.to_converse_messages(rest, tools_enabled=bool(tools)),
            request.prompt,
            request.attachments,
            images=request.images,
        )
        kwargs: dict[str, Any] = {"modelId": self.model, "messages": messages}
        if system:
            # prompt_caching: the system prompt is the same every round, so it is cached.
            cache = [{"cachePoint": {"type": "default"}}] if self.config.prompt_caching else []
            kwargs["system"] = [*system, *cache]
        if (tc := wire_fmt.tool_config(tools)) is not None:
            kwargs["toolConfig"] = tc
        return ConverseConversation(kwargs, tools_enabled=tc is not None, on_wire=request.on_wire)

    def add_assistant_turn(self, conv: ConverseConversation, result: RoundResult) -> None:
        turn = wire_fmt.assistant_turn(result, tools_enabled=conv.tools_enabled)
        conv.kwargs["messages"].append(turn)

    def add_tool_results(self, conv: ConverseConversation, runs: list[ToolRun]) -> None:
        turn = wire_fmt.tool_results_turn(runs, tools_enabled=conv.tools_enabled)
        conv.kwargs["messages"].append(turn)

    def error(self, message: str) -> AgentError:
        return AgentError(self._auth.redact(f"{self._auth.who}: {message}"), agent=self.name)

    @asynccontextmanager
    async def open_round(
        self, conv: ConverseConversation
    ) -> AsyncIterator[tuple[AsyncIterator[dict[str, Any]], ConverseStreamParser]]:
        try:
            events = self._raw_events(conv)
            on_wire, conv.on_wire = conv.on_wire, None
            if on_wire is not None:  # the call runs in a thread: nothing on the loop delays it
                on_wire()
            async with aclosing(events):
                yield events, ConverseStreamParser(self.model or self.name)
        except Exception as e:  # botocore raises many unrelated types; all are worded here
            raise self._error(e) from None

    def _wants_refresh(self, e: Exception) -> bool:
        if not self._auth.can_refresh:
            return False
        if type(e).__name__ == "NoCredentialsError":
            return True
        status, code, _ = _client_error_parts(e)
        return status == 403 or "ExpiredToken" in code

    def _get_client(self) -> Any:
        if self._client is not None and self._client_generation == self._auth.generation:
            return self._client
        import boto3
        from botocore.config import Config

        timeout = self.config.timeout_secs or 60.0
        cfg = Config(
            retries={"total_max_attempts": 1},  # errors surface at once; the dispatcher decides
            read_timeout=timeout,
            connect_timeout=min(timeout, CONNECT_TIMEOUT_S),
            user_agent_extra="milk-tui",
        )
        static = self._auth.client_kwargs()
        # Explicit keys: the shared Session is safe and fast.  Default chain: a Session of
        # our own, because a Session caches the chain's answer for the whole process.
        session = _shared_session(boto3) if static else boto3.session.Session()
        self._client = session.client(
            "bedrock-runtime",
            region_name=resolve_region(self.config),
            endpoint_url=(self.config.endpoint_url or self.config.url or None),
            config=cfg,
            **static,
        )
        if (service := self.config.aws_service) != "bedrock":  # a proxy signing as another name
            self._client.meta.events.register(
                "before-sign.bedrock-runtime.*", partial(_sign_as, service)
            )
        self._client_generation = self._auth.generation
        return self._client

    async def _raw_events(self, conv: ConverseConversation) -> AsyncGenerator[dict[str, Any], None]:
        """The call's events.  A credential denial before the first event runs
        ``aws_refresh_cmd`` (once per turn) and calls again."""
        while True:
            received = False
            try:
                async with aclosing(await self._call(conv.kwargs)) as events:
                    async for ev in events:
                        received = True
                        yield ev
                return
            except Exception as e:
                if received or conv.refreshed or not self._wants_refresh(e):
                    raise
                conv.refreshed = True
                try:
                    await self._auth.refresh()
                except AgentError as refresh_err:
                    raise self._error(e, note=str(refresh_err)) from None

    async def _call(self, kwargs: dict[str, Any]) -> AsyncGenerator[dict[str, Any], None]:
        """Start one ``converse_stream`` in a worker thread; its events, not yet read."""
        client = await asyncio.to_thread(self._get_client)
        wire = self._wire
        if wire:
            body = json.dumps(kwargs, default=str).encode()
            wire.request("ConverseStream", str(self.model), {}, body)
        events = iterate_in_thread(
            lambda: client.converse_stream(**kwargs)["stream"],
            abort=_abort,
            name=f"bedrock-{self.name}",
        )
        if not wire:
            return events
        return _logged(events, wire)

    def _error(self, e: Exception, *, note: str = "") -> AgentError:
        if isinstance(e, AgentError):
            return e
        who = self._auth.who
        if isinstance(e, WireShapeError):
            return AgentError(f"{who}: malformed event from Bedrock: {e}", agent=self.name)
        if isinstance(e, AttributeError | TypeError | ValueError | KeyError | ArithmeticError):
            # botocore maps each event onto the service's shapes before we see it, and
            # fails this way on a structure that is not an object: still the event's fault.
            text = f"{type(e).__name__}: {e}"
            return AgentError(
                self._auth.redact(f"{who}: malformed event from Bedrock (botocore: {text})"),
                agent=self.name,
            )
        kind = type(e).__name__
        status, code, message = _client_error_parts(e)
        retryable = False
        if code:
            where = f" (HTTP {status})" if status else ""
            text = f"{who}: {code}{where}: {message}"
            retryable = code in RETRYABLE_CODES
        elif kind == "NoCredentialsError":
            text = (
                f"{who}: no AWS credentials found (set aws_key_id/aws_secret, AWS_* "
                "environment variables, an AWS profile, or aws_refresh_cmd)"
            )
        elif kind in ("EndpointConnectionError", "ConnectTimeoutError", "ConnectionClosedError"):
            text = f"{who} unreachable: {e}"
            retryable = True
        elif kind == "ReadTimeoutError":
            text = f"{who}: no data from Bedrock for {self.config.timeout_secs:g}s (read timeout)"
            retryable = True
        else:
            text = f"{who}: {kind}: {e}"
        if note:
            text += f" ({note})"
        return AgentError(
            self._auth.redact(text), agent=self.name, status=status, retryable=retryable
        )


_SESSION: Any = None
_SESSION_LOCK = threading.Lock()


def _sign_as(service: str, request: Any, **_: Any) -> None:
    """botocore's ``before-sign`` hook: the SigV4 scope names ``service`` (``aws_service``)."""
    request.context.setdefault("signing", {})["signing_name"] = service


def _shared_session(boto3: Any) -> Any:
    """One boto3 Session per process: building one re-reads botocore's endpoint and service
    data (~0.3 s).  Only used with explicit (config or refreshed) keys passed per client,
    so sharing never mixes credentials."""
    global _SESSION
    with _SESSION_LOCK:
        if _SESSION is None:
            _SESSION = boto3.session.Session()
        return _SESSION


async def _logged(
    events: AsyncGenerator[dict[str, Any], None], wire: WireLog
) -> AsyncGenerator[dict[str, Any], None]:
    """The events, each written to the wire log first (only with ``--debug``)."""
    async with aclosing(events):
        try:
            async for ev in events:
                wire.line("event " + json.dumps(ev, default=str))
                yield ev
        finally:
            wire.flush()  # records held back for redaction


def _client_error_parts(e: Exception) -> tuple[int | None, str, str]:
    """(HTTP status, error code, message) of a botocore ClientError / EventStreamError."""
    resp = getattr(e, "response", None)
    if not isinstance(resp, dict) or "Error" not in resp:
        return None, "", ""
    err = resp.get("Error") or {}
    status = (resp.get("ResponseMetadata") or {}).get("HTTPStatusCode")
    return status, str(err.get("Code", "")), str(err.get("Message", ""))


def _abort(stream: Any) -> None:
    """Unblock the worker's pending read now; the close itself happens off the loop.

    Closing a urllib3 response from another thread waits on the reader's buffer lock (so
    until the next byte or the read timeout); shutting the socket down wakes the reader
    at once, and it then sees ``stop`` and exits.
    """
    raw = getattr(stream, "_raw_stream", None)
    sock = getattr(getattr(raw, "_connection", None), "sock", None)
    if sock is None:
        fp = getattr(getattr(raw, "_fp", None), "fp", None)
        sock = getattr(getattr(fp, "raw", None), "_sock", None)
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
    threading.Thread(target=_close_quietly, args=(stream,), daemon=True).start()


def _close_quietly(stream: Any) -> None:
    try:
        stream.close()
    except Exception:  # noqa: BLE001 - closing a half-read socket may raise anything
        pass
