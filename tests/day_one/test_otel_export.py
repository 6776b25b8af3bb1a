"""OpenTelemetry export: real turns against the fake OpenAI server, spans received by a
local OTLP/HTTP receiver and decoded with the official protobuf classes."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from milk_tui.facade.application import Application, start
from milk_tui.model import events as ev
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall, usage
from milk_tui.testing.otlp_receiver import OtlpReceiver


def _config(home: Path, llm_url: str, otel: dict) -> Path:
    path = home / "config.json"
    path.write_text(
        json.dumps(
            {
                "agent": "llama",
                "escalation_agent": "demo",
                "agents": [
                    {"name": "llama", "provider": "local", "url": llm_url, "model": "qwen-7b"},
                    {"name": "demo", "provider": "demo"},
                ],
                "otel": otel,
            }
        )
    )
    return path


def _app(tmp_path: Path, cfg: Path) -> Application:
    return start(cwd=str(tmp_path), config_path=cfg, permission_policy="allow")


async def test_a_turn_with_a_tool_call_is_a_span_with_a_child_per_call(tmp_path, milk_home):
    (tmp_path / "notes.txt").write_text("hello\n")
    with FakeOpenAIServer() as llm, OtlpReceiver() as rx:
        llm.enqueue(
            FakeReply(
                tool_calls=[FakeToolCall("read_file", '{"path": "notes.txt"}', id="c1")],
                usage=usage(100, 10, cached=40),
            )
        )
        llm.enqueue(FakeReply(text=["It says ", "hello."], usage=usage(150, 5)))
        cfg = _config(milk_home, llm.url, {"endpoint": rx.url, "headers": {"x-team": "milk"}})
        app = _app(tmp_path, cfg)
        result = await app.run_turn("what is in notes.txt?", force="primary")
        assert result.ok, result.error
        await app.finish()
        await app.aclose()  # flushes the batch
        spans = rx.wait_for(2)
    by_name = {s.name: s for s in spans}
    assert set(by_name) == {"milk.turn", "execute_tool read_file"}
    turn, tool = by_name["milk.turn"], by_name["execute_tool read_file"]
    assert turn.parent_span_id == "" and tool.parent_span_id == turn.span_id
    assert tool.trace_id == turn.trace_id
    assert turn.attributes["gen_ai.agent.name"] == "llama"
    assert turn.attributes["milk.slot"] == "primary"
    assert turn.attributes["gen_ai.request.model"] == "qwen-7b"
    # prompt tokens are the fresh ones: 100-40 and 150
    assert turn.attributes["gen_ai.usage.input_tokens"] == 60 + 150
    assert turn.attributes["gen_ai.usage.output_tokens"] == 15
    assert turn.attributes["milk.usage.cache_read_tokens"] == 40
    assert turn.attributes["milk.tool_calls"] == 1 and turn.attributes["milk.ok"] is True
    assert turn.status_code == 1
    assert tool.attributes["gen_ai.tool.name"] == "read_file"
    assert tool.attributes["gen_ai.tool.call.id"] == "c1"
    assert tool.attributes["milk.ok"] is True
    assert turn.start_ns <= tool.start_ns <= tool.end_ns <= turn.end_ns
    assert turn.resource["service.name"] == "milk-tui"
    assert rx.headers[0]["x-team"] == "milk"
    # no text of the conversation leaves the machine
    assert "hello" not in json.dumps([s.attributes for s in spans])


async def test_a_failed_turn_is_an_error_span(tmp_path, milk_home):
    with FakeOpenAIServer() as llm, OtlpReceiver() as rx:
        llm.enqueue(FakeReply(status=500, error_body="boom"))
        cfg = _config(milk_home, llm.url, {"endpoint": rx.url})
        app = _app(tmp_path, cfg)
        result = await app.run_turn("hi", force="primary")
        assert not result.ok
        await app.aclose()
        spans = rx.wait_for(1)
    assert [s.name for s in spans] == ["milk.turn"]
    assert spans[0].status_code == 2 and spans[0].attributes["milk.ok"] is False
    assert "500" in spans[0].status_message


async def test_collector_down_the_turn_goes_on_with_one_warning(tmp_path, milk_home):
    with OtlpReceiver() as rx:
        dead = rx.url  # nothing listens there once the receiver is closed
    with FakeOpenAIServer() as llm:
        cfg = _config(milk_home, llm.url, {"endpoint": dead, "timeout_secs": 1})
        app = _app(tmp_path, cfg)
        events: list[ev.BusEvent] = []
        app.add_listener(events.append)
        telemetry = app.runtime.telemetry
        assert telemetry is not None
        for prompt in ("one", "two"):
            result = await app.run_turn(prompt, force="primary")
            assert result.ok and result.text == "Hello from the fake."
            telemetry.flush(3)
        await app.aclose()
    warnings = [
        e.message for e in events if isinstance(e, ev.Notice) and "OpenTelemetry" in e.message
    ]
    assert len(warnings) == 1 and dead in warnings[0]
    status = telemetry.status()
    assert status.failed >= 2 and status.exported == 0 and status.last_error


async def test_a_rejecting_collector_is_the_same_single_warning(tmp_path, milk_home):
    with FakeOpenAIServer() as llm, OtlpReceiver() as rx:
        rx.status = 400
        cfg = _config(milk_home, llm.url, {"endpoint": rx.url})
        app = _app(tmp_path, cfg)
        events: list[ev.BusEvent] = []
        app.add_listener(events.append)
        assert (await app.run_turn("hi", force="primary")).ok
        assert app.runtime.telemetry is not None
        app.runtime.telemetry.flush(3)
        await asyncio.sleep(0)  # the warning is handed to the loop by the exporter's thread
        await app.aclose()
    assert sum(isinstance(e, ev.Notice) and "OpenTelemetry" in e.message for e in events) == 1


def test_without_an_endpoint_the_sdk_is_never_imported(tmp_path, milk_home):
    """Go's default otel object (enabled, no endpoint): nothing exported, nothing loaded,
    no warning."""
    cfg = milk_home / "config.json"
    cfg.write_text(
        json.dumps(
            {
                "otel": {"enabled": True, "log_level": "INFO", "traces": True, "metrics": True,
                         "warn_mb": 50, "max_mb": 0, "metrics_flush_minutes": 5},
            }
        )
    )  # fmt: skip
    code = (
        "import sys\n"
        "from milk_tui.facade.application import start\n"
        f"app = start(cwd={str(tmp_path)!r}, config_path={str(cfg)!r}, demo=True)\n"
        "assert app.runtime.telemetry is None\n"
        "print([n for n in app.startup_notes if 'otel' in n])\n"
        "print(sorted(m for m in sys.modules if m.startswith(('opentelemetry', 'milk_tui.engine.tele'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["[]", "[]"]


async def test_a_hand_off_is_one_turn_span_ending_with_the_escalation(rig):
    from milk_tui.agents.base import TextChunk
    from milk_tui.config.otel import OtelConfig
    from milk_tui.engine.telemetry import TurnTelemetry
    from milk_tui.testing.scripted_agent import Hold, say

    with OtlpReceiver() as rx:
        t = TurnTelemetry(OtelConfig(endpoint=rx.url), rig.bus, rig.dispatcher.state.agent, "t")
        rig.primary.push(say("over to you", escalation_reason="too hard"))
        rig.escalation.push(say("done."))
        await rig.dispatcher.run_turn("fix the build")
        hold = Hold()  # never released: the turn runs until it is cancelled
        rig.primary.push([TextChunk("a"), hold, *say("b", "c", "d", "e")])
        task = rig.dispatcher.submit("slow", force="primary")
        await hold.reached.wait()
        rig.dispatcher.cancel()
        await asyncio.gather(task, return_exceptions=True)
        t.shutdown()
        spans = rx.wait_for(2)
    handoff, cancelled = sorted(spans, key=lambda s: s.start_ns)
    assert handoff.attributes["milk.slot"] == "escalation"
    assert handoff.attributes["gen_ai.agent.name"] == "claude"
    assert handoff.attributes["milk.handoff.mode"] == "first" and handoff.status_code == 1
    assert cancelled.attributes["milk.cancelled"] is True and cancelled.status_code == 2


def test_print_mode_exports_and_a_dead_collector_is_one_stderr_line(tmp_path, milk_home):
    from milk_tui.testing.cli_run import run_milk

    with OtlpReceiver() as gone:
        dead = gone.url
    with FakeOpenAIServer() as llm, OtlpReceiver() as rx:
        _config(milk_home, llm.url, {"endpoint": rx.url})
        r = run_milk("-p", "hi", "--primary", cwd=tmp_path)
        assert r.returncode == 0 and r.stderr == ""
        assert [s.name for s in rx.wait_for(1)] == ["milk.turn"]
        _config(milk_home, llm.url, {"endpoint": dead})
        r = run_milk("-p", "hi", "--primary", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == "Hello from the fake.\n"
    assert r.stderr.splitlines() == [
        f"milk-tui: OpenTelemetry export to {dead}/v1/traces failed (the collector did not "
        "accept the spans); turns are not affected"
    ]
