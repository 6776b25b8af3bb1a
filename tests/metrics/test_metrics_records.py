"""The metrics record and its summary, fed bus events directly (the fast unit layer)."""

from __future__ import annotations

import json
from pathlib import Path

from milk_tui.config.otel import OtelConfig
from milk_tui.engine.bus import EventBus
from milk_tui.engine.metrics_log import MetricsLog
from milk_tui.engine.metrics_summary import percentile, read_report
from milk_tui.model import events as ev


def _turn(bus: EventBus, i: int, seconds: float, error: str = "", agent: str = "llama") -> None:
    t0 = 1000.0 + i * 100
    bus.publish(ev.TurnStarted(prompt="secret plan", turn_index=i, ts=t0))
    bus.publish(ev.RouteDecided(target="primary", agent_name=agent, reason="r", rule="default",
                                ts=t0))  # fmt: skip
    bus.publish(ev.TextDelta(slot="primary", text="the reply", ts=t0 + 0.25))
    bus.publish(ev.ToolCall(slot="primary", call_id="c", name="bash", arguments='{"x": 1}',
                            ts=t0 + 0.5))  # fmt: skip
    bus.publish(ev.ToolResult(slot="primary", call_id="c", content="out", is_error=True,
                              ts=t0 + 0.75))  # fmt: skip
    bus.publish(ev.Usage(role="primary", model="m", prompt_tokens=10, completion_tokens=2,
                         cost_usd=0.01, ts=t0 + 1))  # fmt: skip
    if error:
        bus.publish(ev.TurnFailed(error=error, agent_name=agent, ts=t0 + seconds))
    else:
        bus.publish(ev.TurnCompleted(slot="primary", agent_name=agent, text="the reply",
                                     ts=t0 + seconds))  # fmt: skip


def test_records_and_summary(tmp_path: Path) -> None:
    bus = EventBus()
    log = MetricsLog(OtelConfig(), bus, tmp_path)
    for i in range(10):
        _turn(bus, i, float(i + 1))
    _turn(bus, 10, 2.0, error="HTTP 401 from http://user:hunter2@host/v1: Bearer abcdef123456")
    log.close()
    text = (tmp_path / "otel" / "metrics.jsonl").read_text()
    for word in ("secret plan", "the reply", '"x"', "hunter2", "abcdef123456"):
        assert word not in text, word
    last = json.loads(text.splitlines()[-1])
    assert last["ok"] is False and "HTTP 401" in last["error"] and "***" in last["error"]
    first = json.loads(text.splitlines()[0])
    assert first["first_token_seconds"] == 0.25 and first["seconds"] == 1.0
    assert first["tools"] == [{"name": "bash", "seconds": 0.25, "ok": False}]
    assert first["rule"] == "default" and first["cost_usd"] == 0.01
    (a,) = read_report(tmp_path).agents
    assert (a.turns, a.errors, a.tool_calls, a.tool_errors) == (11, 1, 11, 11)
    assert a.p50_seconds == 5.0 and a.p95_seconds == 10.0 and a.p50_first_token == 0.25
    assert abs(a.cost_usd - 0.11) < 1e-9 and a.prompt_tokens == 110


def test_percentile_nearest_rank() -> None:
    assert percentile([], 50) == 0.0
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert percentile([float(i) for i in range(1, 101)], 95) == 95.0


def test_a_cut_line_is_skipped(tmp_path: Path) -> None:
    d = tmp_path / "otel"
    d.mkdir()
    (d / "metrics.jsonl").write_text('{"kind":"turn","agent":"a","seconds":1}\n{"kind":"tu')
    (d / "metrics.jsonl.1").write_text('{"kind":"turn","agent":"a","seconds":3}\n')
    report = read_report(tmp_path)
    assert report.turns == 2 and report.agents[0].p95_seconds == 3.0
