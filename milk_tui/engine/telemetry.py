"""OpenTelemetry export of turns and tool calls, read off the bus.

Only built when the ``otel`` config has an endpoint (config/otel.py); the SDK is imported
then and never otherwise, so a start without it pays nothing.  Each turn is a ``milk.turn``
span (from ``TurnStarted`` to its ``TurnCompleted``/``TurnFailed``) with one child
``execute_tool <name>`` span per tool call; the timestamps are the events' own.  No
prompt, reply or tool argument text is exported: names, models, counts, tokens and cost.
Spans leave in a background thread (the SDK's ``BatchSpanProcessor``); a collector that
is down costs one warning line and never a turn (docs/adr/0028-day-one-commands-and-otel.md).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from milk_tui.agents.base import Slot
from milk_tui.config.otel import OtelConfig
from milk_tui.engine.agent_slot import AgentSlot
from milk_tui.engine.bus import EventBus
from milk_tui.model import events as ev

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
    from opentelemetry.trace import Span, Tracer

AgentOf = Callable[[Slot], AgentSlot | None]
"""The agent now in a slot (agents can change during a session)."""
FLUSH_WAIT_S = 1.0
"""Leaving waits about this long for the last spans to go out (twice at worst)."""


@dataclass(frozen=True)
class TelemetryStatus:
    """What ``/otel`` shows."""

    active: bool
    endpoint: str = ""
    exported: int = 0
    """Spans the collector accepted."""
    failed: int = 0
    """Spans lost to failed exports."""
    last_error: str = ""


def _ns(ts: float) -> int:
    return int(ts * 1_000_000_000)


@dataclass
class _Turn:
    span: Span
    tools: dict[str, Span]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_read: int = 0
    cost_usd: float = 0.0
    model: str = ""
    slot: str = ""
    tool_calls: int = 0
    last_ts: float = 0.0


class TurnTelemetry:
    """Turns and tool calls as spans; the bus listener and the exporter's bookkeeping."""

    def __init__(self, cfg: OtelConfig, bus: EventBus, agent: AgentOf, version: str) -> None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        # The SDK reports export failures through `logging`; with no handler configured
        # Python prints them to stderr, over the TUI.  They reach the user as one notice.
        sdk_log = logging.getLogger("opentelemetry")
        sdk_log.addHandler(logging.NullHandler())
        sdk_log.propagate = False
        self.endpoint = cfg.traces_url()
        self._bus = bus
        self._agent = agent
        self._lock = threading.Lock()
        self._exported = self._failed = 0
        self._last_error = ""
        self._warned = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._inner = OTLPSpanExporter(
            endpoint=self.endpoint, headers=dict(cfg.headers), timeout=cfg.timeout_secs
        )
        self._provider: TracerProvider = TracerProvider(
            resource=Resource.create(
                {"service.name": cfg.service_name, "service.version": version}
            ),
            shutdown_on_exit=False,  # aclose() shuts it down, bounded; atexit could hang
        )
        self._provider.add_span_processor(BatchSpanProcessor(_reporting(self._inner, self)))
        self._tracer: Tracer = self._provider.get_tracer("milk_tui")
        self._turn: _Turn | None = None
        self._remove = bus.add_listener(self.on_event)

    # ----- bus → spans --------------------------------------------------------------------

    def on_event(self, event: ev.BusEvent) -> None:
        if type(event) not in _HANDLED:
            return  # text and thinking deltas: one set lookup on the streaming path
        t = self._turn
        match event:
            case ev.TurnStarted():
                self._start_turn(event)
            case ev.RouteDecided() if t is not None:
                t.slot = event.target
                t.span.set_attributes(
                    {
                        "gen_ai.agent.name": event.agent_name,
                        "milk.slot": event.target,
                        "milk.route.rule": event.rule,
                    }
                )
            case ev.EscalationStarted() if t is not None:
                t.slot = "escalation"
                t.span.set_attributes(
                    {"gen_ai.agent.name": event.agent_name, "milk.slot": "escalation",
                     "milk.handoff.mode": event.mode}
                )  # fmt: skip
            case ev.Usage() if t is not None:
                t.prompt_tokens += event.prompt_tokens
                t.completion_tokens += event.completion_tokens
                t.cache_read += event.cache_read
                t.cost_usd += event.cost_usd
                t.model = event.model or t.model
            case ev.ToolCall() if t is not None:
                self._start_tool(t, event)
            case ev.ToolResult() if t is not None:
                self._end_tool(t, event.call_id, event.ts, "" if not event.is_error else "error")
            case ev.TurnCompleted() if t is not None:
                t.span.set_attribute("gen_ai.agent.name", event.agent_name)
                t.last_ts = event.ts
                if not event.self_escalated:  # else the escalation's answer ends the turn
                    self._end_turn(t, event.ts, "")
            case ev.TurnFailed() if t is not None:
                why = "cancelled" if event.cancelled else (event.error or "failed")
                t.span.set_attribute("milk.cancelled", event.cancelled)
                self._end_turn(t, event.ts, why)

    def _start_turn(self, event: ev.TurnStarted) -> None:
        from opentelemetry.trace import SpanKind

        if self._loop is None:
            try:
                self._loop = asyncio.get_running_loop()
            except RuntimeError:
                pass
        if self._turn is not None:  # a hand-off whose escalation never came
            self._end_turn(self._turn, self._turn.last_ts or event.ts, "")
        span = self._tracer.start_span(
            "milk.turn",
            kind=SpanKind.INTERNAL,
            start_time=_ns(event.ts),
            attributes={
                "gen_ai.operation.name": "invoke_agent",
                "milk.session.id": event.session_id,
                "milk.turn.index": event.turn_index,
            },
        )
        self._turn = _Turn(span, {})

    def _start_tool(self, t: _Turn, event: ev.ToolCall) -> None:
        from opentelemetry.trace import set_span_in_context

        t.tool_calls += 1
        t.tools[event.call_id] = self._tracer.start_span(
            f"execute_tool {event.name}",
            context=set_span_in_context(t.span),
            start_time=_ns(event.ts),
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": event.name,
                "gen_ai.tool.call.id": event.call_id,
                "milk.slot": event.slot,
            },
        )

    def _end_tool(self, t: _Turn, call_id: str, ts: float, error: str) -> None:
        span = t.tools.pop(call_id, None)
        if span is not None:
            _finish(span, ts, error)

    def _end_turn(self, t: _Turn, ts: float, error: str) -> None:
        for call_id in list(t.tools):
            self._end_tool(t, call_id, ts, error or "no result")
        t.span.set_attributes(
            {
                "gen_ai.request.model": t.model or self._slot_model(t.slot),
                "gen_ai.usage.input_tokens": t.prompt_tokens,
                "gen_ai.usage.output_tokens": t.completion_tokens,
                "milk.usage.cache_read_tokens": t.cache_read,
                "milk.cost_usd": t.cost_usd,
                "milk.tool_calls": t.tool_calls,
            }
        )
        _finish(t.span, ts, error)
        self._turn = None

    def _slot_model(self, slot: str) -> str:
        a = self._agent("escalation" if slot == "escalation" else "primary")
        return a.model if a is not None else ""

    # ----- exporter bookkeeping (called on the exporter's thread) ---------------------------

    def exported(self, n: int, ok: bool, error: str) -> None:
        with self._lock:
            if ok:
                self._exported += n
                return
            self._failed += n
            self._last_error = error
            if self._warned:
                return
            self._warned = True
        message = (
            f"OpenTelemetry export to {self.endpoint} failed ({error}); turns are not affected"
        )
        loop = self._loop
        if loop is not None and not loop.is_closed():
            notice = ev.Notice(level="warning", message=message)
            try:
                loop.call_soon_threadsafe(self._bus.publish, notice)
            except RuntimeError:  # the loop closed meanwhile: nobody to tell
                pass

    def status(self) -> TelemetryStatus:
        with self._lock:
            return TelemetryStatus(
                True, self.endpoint, self._exported, self._failed, self._last_error
            )

    def flush(self, timeout_s: float = FLUSH_WAIT_S) -> bool:
        """Send what is queued now (tests, and leaving); False when it did not finish."""
        return self._provider.force_flush(int(timeout_s * 1000))

    def shutdown(self) -> None:
        """Close the open spans and send them, waiting at most ``FLUSH_WAIT_S`` (a collector
        that is down is not waited for: its retry back-off is cut short)."""
        self._remove()
        if self._turn is not None:
            t = self._turn
            self._end_turn(t, t.last_ts or time.time(), "" if t.last_ts else "unfinished")
        with self._lock:
            down = self._failed > 0
        if not down:
            # The SDK's force_flush exports in the calling thread and ignores its timeout
            # while the exporter backs off between retries: bound it from outside.
            _bounded(self._provider.force_flush)
        self._inner.shutdown()  # a retry back-off still running ends at once
        _bounded(self._provider.shutdown)


def _bounded(call: Callable[[], object]) -> None:
    """Run ``call`` on a daemon thread, waiting at most ``FLUSH_WAIT_S`` for it."""
    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    worker.join(FLUSH_WAIT_S)


_HANDLED = frozenset(
    {ev.TurnStarted, ev.RouteDecided, ev.EscalationStarted, ev.Usage, ev.ToolCall,
     ev.ToolResult, ev.TurnCompleted, ev.TurnFailed}
)  # fmt: skip


def _finish(span: Span, ts: float, error: str) -> None:
    from opentelemetry.trace import Status, StatusCode

    span.set_attribute("milk.ok", not error)
    span.set_status(Status(StatusCode.ERROR, error) if error else Status(StatusCode.OK))
    span.end(end_time=_ns(ts))


def _reporting(inner: SpanExporter, telemetry: TurnTelemetry) -> SpanExporter:
    """``inner`` with every export's outcome counted (and a failure told once)."""
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

    class Reporting(SpanExporter):
        def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
            try:
                result = inner.export(spans)
                error = (
                    ""
                    if result is SpanExportResult.SUCCESS
                    else "the collector did not accept the spans"
                )
            except Exception as e:  # noqa: BLE001 — an export fault must not reach a turn
                result, error = SpanExportResult.FAILURE, str(e) or type(e).__name__
            telemetry.exported(len(spans), not error, error)
            return result

        def shutdown(self) -> None:
            inner.shutdown()

        def force_flush(self, timeout_millis: int = 30000) -> bool:
            return inner.force_flush(timeout_millis)

    return Reporting()


def start_telemetry(cfg: OtelConfig, bus: EventBus, agent: AgentOf) -> TurnTelemetry | None:
    """The exporter when ``cfg`` asks for one, else None (and the SDK stays unimported)."""
    if not cfg.active:
        return None
    from importlib.metadata import PackageNotFoundError, version

    try:
        v = version("milk-tui")
    except PackageNotFoundError:
        v = "unknown"
    return TurnTelemetry(cfg, bus, agent, v)


def inactive_status(cfg: OtelConfig) -> TelemetryStatus:
    return TelemetryStatus(False, cfg.endpoint)


__all__ = ["TelemetryStatus", "TurnTelemetry", "inactive_status", "start_telemetry"]
