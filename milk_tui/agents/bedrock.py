"""AWS Bedrock agent: boto3 ``converse_stream`` normalised into AgentEvents.

boto3 is imported lazily (cold start, DESIGN §6) and its event iterator is blocking, so
each model call runs in a daemon worker thread (``thread_stream``); cancelling the turn
shuts the HTTP socket down from the event loop, which unblocks the worker at once.
Request shaping lives in ``bedrock_wire``, credentials and redaction in ``bedrock_auth``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from milk_tui.agents.base import (
    AgentError,
    AgentEvent,
    AgentRequest,
    Finished,
    TextChunk,
    ThinkingChunk,
    ToolCallEvent,
    ToolResultEvent,
    UsageEvent,
)
from milk_tui.agents.bedrock_auth import BedrockAuth, resolve_region
from milk_tui.agents.bedrock_wire import (
    append_prompt,
    assistant_turn,
    split_system,
    to_converse_messages,
    tool_config,
    tool_results_turn,
)
from milk_tui.agents.thread_stream import iterate_in_thread
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

DebugSink = Callable[[str], None]


def _debug_sink(target: DebugSink | Path | str | None) -> DebugSink | None:
    if target is None or callable(target):
        return target
    path = Path(target)

    def write(line: str) -> None:
        with path.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")

    return write


@dataclass
class _Round:
    """What one ``converse_stream`` call produced, accumulated from its events."""

    text: str = ""
    reasoning: str = ""
    signature: str = ""
    stop_reason: str = ""
    tools: dict[int, list[str]] = field(default_factory=dict)  # block index → [id, name, args]
    emitted: bool = False

    def tool_uses(self) -> list[tuple[str, str, str]]:
        return [(t[0], t[1], t[2]) for _, t in sorted(self.tools.items())]


class BedrockAgent:
    def __init__(
        self,
        config: AgentConfig,
        *,
        debug_log: DebugSink | Path | str | None = None,
        max_tool_iterations: int = 0,
    ) -> None:
        self.config = config
        self.name = config.name
        self.model = config.model
        self._auth = BedrockAuth(config)
        self._client: Any = None
        self._client_generation = -1
        self._debug = _debug_sink(debug_log)
        per_agent = config.limits.max_tool_iterations
        self._max_iterations = (
            max_tool_iterations
            if max_tool_iterations > 0
            else per_agent
            if per_agent and per_agent > 0
            else DEFAULT_MAX_TOOL_ITERATIONS
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

    async def stream(self, request: AgentRequest) -> AsyncIterator[AgentEvent]:
        specs = request.tools.specs() if request.tools is not None else []
        system, rest = split_system(request.system_prompt, request.messages)
        messages = append_prompt(
            to_converse_messages(rest, tools_enabled=bool(specs)), request.prompt
        )
        kwargs: dict[str, Any] = {"modelId": self.model, "messages": messages}
        if system:
            kwargs["system"] = system
        if (tc := tool_config(specs)) is not None:
            kwargs["toolConfig"] = tc
        turn = {"refreshed": False}
        seen: set[tuple[str, str]] = set()
        rounds = 0
        while True:
            rnd = _Round()
            async with aclosing(self._round(kwargs, rnd, turn)) as events:
                async for ev in events:
                    yield ev
            calls = rnd.tool_uses()
            if not calls or request.tools is None:
                yield Finished(stop_reason=rnd.stop_reason)
                return
            if rounds >= self._max_iterations:
                raise AgentError(
                    f"bedrock agent '{self.name}': still calling tools after "
                    f"{self._max_iterations} tool iterations",
                    agent=self.name,
                )
            keys = {(name, args) for _, name, args in calls}
            if keys <= seen:
                # Reference §11.7: a round that only repeats executed calls ends the turn.
                yield Finished(stop_reason="repeated_tool_calls")
                return
            seen |= keys
            rounds += 1
            messages.append(assistant_turn(rnd.reasoning, rnd.signature, rnd.text, calls))
            results: list[tuple[str, str, bool]] = []
            for cid, name, args in calls:
                yield ToolCallEvent(call_id=cid, name=name, arguments=args)
                outcome = await request.tools.call(name, args)
                yield ToolResultEvent(
                    call_id=cid, name=name, content=outcome.content, is_error=outcome.is_error
                )
                if outcome.escalate_reason:
                    yield Finished(
                        stop_reason="escalate", escalation_reason=outcome.escalate_reason
                    )
                    return
                results.append((cid, outcome.content, outcome.is_error))
            messages.append(tool_results_turn(results))

    async def complete(self, prompt: str, *, system: str = "") -> str:
        """One non-streaming ``converse`` call → its text (the router's classifier uses it)."""
        kwargs: dict[str, Any] = {"modelId": self.model, "messages": append_prompt([], prompt)}
        if system:
            kwargs["system"] = [{"text": system}]
        client = await asyncio.to_thread(self._get_client)
        try:
            resp = await asyncio.to_thread(lambda: client.converse(**kwargs))
        except Exception as e:
            raise self._error(e) from None
        blocks = resp.get("output", {}).get("message", {}).get("content", [])
        return next((b["text"] for b in blocks if "text" in b), "")

    # ----- one model call ---------------------------------------------------------

    async def _round(
        self, kwargs: dict[str, Any], rnd: _Round, turn: dict[str, bool]
    ) -> AsyncIterator[AgentEvent]:
        while True:
            try:
                async with aclosing(self._raw_events(kwargs)) as raw:
                    async for ev in raw:
                        for out in self._convert(ev, rnd):
                            rnd.emitted = True
                            yield out
                return
            except Exception as e:
                if not rnd.emitted and not turn["refreshed"] and self._wants_refresh(e):
                    turn["refreshed"] = True
                    try:
                        await self._auth.refresh(self.name)
                    except AgentError as refresh_err:
                        raise self._error(e, note=str(refresh_err)) from None
                    continue
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
        self._client_generation = self._auth.generation
        return self._client

    async def _raw_events(self, kwargs: dict[str, Any]) -> AsyncIterator[dict[str, Any]]:
        client = await asyncio.to_thread(self._get_client)
        if self._debug:
            self._debug(
                self._auth.redact(f"[{self.name}] request " + json.dumps(kwargs, default=str))
            )
        events = iterate_in_thread(
            lambda: client.converse_stream(**kwargs)["stream"],
            abort=_abort,
            name=f"bedrock-{self.name}",
        )
        async with aclosing(events):
            async for ev in events:
                if self._debug:
                    self._debug(
                        self._auth.redact(f"[{self.name}] event " + json.dumps(ev, default=str))
                    )
                yield ev

    def _convert(self, ev: dict[str, Any], rnd: _Round) -> list[AgentEvent]:
        if "contentBlockStart" in ev:
            body = ev["contentBlockStart"]
            tu = body.get("start", {}).get("toolUse")
            if tu:
                rnd.tools[body.get("contentBlockIndex", len(rnd.tools))] = [
                    tu.get("toolUseId", ""),
                    tu.get("name", ""),
                    "",
                ]
            return []
        if "contentBlockDelta" in ev:
            body = ev["contentBlockDelta"]
            delta = body.get("delta", {})
            if "text" in delta:
                rnd.text += delta["text"]
                return [TextChunk(delta["text"])] if delta["text"] else []
            if "toolUse" in delta:
                slot = rnd.tools.setdefault(body.get("contentBlockIndex", 0), ["", "", ""])
                slot[2] += delta["toolUse"].get("input", "")
                return []
            if "reasoningContent" in delta:
                rc = delta["reasoningContent"]
                rnd.signature += rc.get("signature", "")
                if rc.get("text"):
                    rnd.reasoning += rc["text"]
                    return [ThinkingChunk(rc["text"])]
            return []
        if "messageStop" in ev:
            rnd.stop_reason = ev["messageStop"].get("stopReason", "")
            return []
        if "metadata" in ev:
            u = ev["metadata"].get("usage") or {}
            if not u:
                return []
            # Bedrock counts are already additive: inputTokens excludes cache reads/writes.
            return [
                UsageEvent(
                    model=self.model or self.name,
                    prompt_tokens=int(u.get("inputTokens", 0)),
                    completion_tokens=int(u.get("outputTokens", 0)),
                    cache_read=int(u.get("cacheReadInputTokens", 0)),
                    cache_creation=int(u.get("cacheWriteInputTokens", 0)),
                )
            ]
        return []

    def _error(self, e: Exception, *, note: str = "") -> AgentError:
        if isinstance(e, AgentError):
            return e
        who = f"bedrock agent '{self.name}'"
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


def _shared_session(boto3: Any) -> Any:
    """One boto3 Session per process: building one re-reads botocore's endpoint and service
    data (~0.3 s).  Only used with explicit (config or refreshed) keys passed per client,
    so sharing never mixes credentials."""
    global _SESSION
    with _SESSION_LOCK:
        if _SESSION is None:
            _SESSION = boto3.session.Session()
        return _SESSION


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
