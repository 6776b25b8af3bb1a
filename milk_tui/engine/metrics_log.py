"""Each turn's figures, read off the bus, as one line of ``<data dir>/otel/metrics.jsonl``.

Written whether or not an OTLP collector is set (``otel.metrics = false`` turns it off).
A record holds figures only: the agent, slot and route rule, tokens, cost, seconds, the
seconds to the first streamed token, and each tool call's name, seconds and outcome.  No
prompt, reply or tool argument: the database already keeps the conversation under its
own rules, and a file of figures that anyone may attach to a bug report must not carry
it.  A failure's error line is the one text kept, passed through the redaction helper and
cut short (docs/adr/0043-local-metrics-and-install.md).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from milk_tui.agents.redact import Redactor
from milk_tui.config.otel import OtelConfig
from milk_tui.engine.bus import EventBus
from milk_tui.engine.signal_file import SignalFile
from milk_tui.model import events as ev

RECORD_VERSION = 1
ERROR_CHARS = 200
"""A failure's error line is cut to this many characters."""


def metrics_path(data: Path) -> Path:
    return data / "otel" / "metrics.jsonl"


@dataclass
class _Tool:
    name: str
    start: float
    seconds: float = 0.0
    ok: bool = True
    done: bool = False


@dataclass
class _Turn:
    start: float
    session: str
    index: int
    agent: str = ""
    slot: str = ""
    rule: str = ""
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_read: int = 0
    cost_usd: float = 0.0
    first_token: float | None = None
    last_ts: float = 0.0
    tools: dict[str, _Tool] = field(default_factory=dict)


class MetricsLog:
    """The bus listener that turns events into turn records on a ``SignalFile``."""

    def __init__(self, cfg: OtelConfig, bus: EventBus, data: Path) -> None:
        self._bus = bus
        self._loop: asyncio.AbstractEventLoop | None = None
        self._redact = Redactor()
        self._turn: _Turn | None = None
        self.file = SignalFile(metrics_path(data), cfg.warn_bytes, cfg.rotate_bytes, self._tell)
        self._remove = bus.add_listener(self.on_event)

    def on_event(self, event: ev.BusEvent) -> None:
        kind = type(event)
        if kind not in _HANDLED:
            return
        t = self._turn
        if kind is ev.TextDelta or kind is ev.ThinkingDelta:
            if t is not None and t.first_token is None:
                t.first_token = event.ts
            return
        match event:
            case ev.TurnStarted():
                self._start(event)
            case ev.RouteDecided() if t is not None:
                t.agent, t.slot, t.rule = event.agent_name, event.target, event.rule
            case ev.EscalationStarted() if t is not None:
                t.agent, t.slot = event.agent_name, "escalation"
            case ev.Usage() if t is not None:
                t.prompt_tokens += event.prompt_tokens
                t.completion_tokens += event.completion_tokens
                t.cache_read += event.cache_read
                t.cost_usd += event.cost_usd
                t.model = event.model or t.model
            case ev.ToolCall() if t is not None:
                if t.first_token is None:
                    t.first_token = event.ts
                t.tools[event.call_id] = _Tool(event.name, event.ts)
            case ev.ToolResult() if t is not None:
                tool = t.tools.get(event.call_id)
                if tool is not None and not tool.done:
                    tool.seconds, tool.ok, tool.done = (
                        event.ts - tool.start,
                        not event.is_error,
                        True,
                    )
            case ev.TurnCompleted() if t is not None:
                t.agent, t.slot, t.last_ts = event.agent_name or t.agent, event.slot, event.ts
                if not event.self_escalated:  # else the escalation's answer ends the turn
                    self._end(t, event.ts, "", cancelled=False)
            case ev.TurnFailed() if t is not None:
                if event.agent_name:
                    t.agent = event.agent_name
                self._end(t, event.ts, event.error or "failed", cancelled=event.cancelled)

    def _start(self, event: ev.TurnStarted) -> None:
        if self._loop is None:
            try:
                self._loop = asyncio.get_running_loop()
            except RuntimeError:
                pass
        if self._turn is not None:  # a hand-off whose escalation never came
            self._end(self._turn, self._turn.last_ts or event.ts, "", cancelled=False)
        self._turn = _Turn(event.ts, event.session_id, event.turn_index)

    def _end(self, t: _Turn, ts: float, error: str, *, cancelled: bool) -> None:
        self._turn = None
        self.file.append(self.record(t, ts, error, cancelled))

    def record(self, t: _Turn, ts: float, error: str, cancelled: bool) -> dict[str, Any]:
        tools = [
            {"name": x.name, "seconds": round(x.seconds if x.done else ts - x.start, 3),
             "ok": x.ok and x.done}
            for x in t.tools.values()
        ]  # fmt: skip
        return {
            "v": RECORD_VERSION,
            "kind": "turn",
            "ts": round(ts, 3),
            "session": t.session,
            "turn": t.index,
            "agent": t.agent,
            "slot": t.slot,
            "rule": t.rule,
            "model": t.model,
            "prompt_tokens": t.prompt_tokens,
            "completion_tokens": t.completion_tokens,
            "cache_read": t.cache_read,
            "cost_usd": round(t.cost_usd, 6),
            "seconds": round(max(ts - t.start, 0.0), 3),
            "first_token_seconds": (
                None if t.first_token is None else round(max(t.first_token - t.start, 0.0), 3)
            ),
            "tools": tools,
            "ok": not error,
            "cancelled": cancelled,
            "error": "cancelled" if cancelled else self._redact(error)[:ERROR_CHARS],
        }

    def _tell(self, level: str, message: str) -> None:
        """From the writer thread: one notice on the bus, on the loop's thread."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        notice = ev.Notice(level="warning" if level == "warning" else "info", message=message)
        try:
            loop.call_soon_threadsafe(self._bus.publish, notice)
        except RuntimeError:  # the loop closed meanwhile: nobody to tell
            pass

    def close(self) -> None:
        """Write what is queued (bounded) and stop listening."""
        self._remove()
        self.file.close()


_HANDLED = frozenset(
    {ev.TurnStarted, ev.RouteDecided, ev.EscalationStarted, ev.Usage, ev.ToolCall,
     ev.ToolResult, ev.TurnCompleted, ev.TurnFailed, ev.TextDelta, ev.ThinkingDelta}
)  # fmt: skip


def start_metrics_log(cfg: OtelConfig, bus: EventBus, data: Path | None) -> MetricsLog | None:
    if not cfg.metrics or data is None:
        return None
    return MetricsLog(cfg, bus, data)


__all__ = ["MetricsLog", "metrics_path", "start_metrics_log"]
