"""The local metrics file: real turns against the fake OpenAI server write one JSON line of
figures each, with or without an OTLP collector; rotation, the size warning and a full disk."""

from __future__ import annotations

import json
import os
from pathlib import Path

from peer_missing import skip_peer_missing

from milk_tui.facade.application import Application, start
from milk_tui.model import events as ev
from milk_tui.testing.cli_run import run_milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall, usage

SECRET = "sk-metrics-secret-123456"


def _config(home: Path, llm_url: str, otel: dict | None = None) -> Path:
    path = home / "config.json"
    path.write_text(json.dumps({
        "agent": "llama", "escalation_agent": "demo",
        "agents": [
            {"name": "llama", "provider": "local", "url": llm_url, "model": "qwen-7b",
             "api_key": SECRET},
            {"name": "demo", "provider": "demo"},
        ],
        "otel": otel or {},
    }))  # fmt: skip
    return path


def _app(tmp_path: Path, cfg: Path) -> Application:
    return start(cwd=str(tmp_path), config_path=cfg, permission_policy="allow")


def _lines(home: Path, name: str = "metrics.jsonl") -> list[dict]:
    f = home / "otel" / name
    return [json.loads(x) for x in f.read_text().splitlines()] if f.exists() else []


async def test_a_turn_with_a_tool_call_is_one_line_of_figures(tmp_path, milk_home):
    (tmp_path / "notes.txt").write_text("hello\n")
    with FakeOpenAIServer() as llm:
        llm.enqueue(FakeReply(tool_calls=[FakeToolCall("read_file", '{"path": "notes.txt"}')],
                              usage=usage(100, 10, cached=40)))  # fmt: skip
        llm.enqueue(FakeReply(text=["It says ", "hello."], usage=usage(150, 5)))
        llm.enqueue(FakeReply(status=500, error_body=f"boom, token={SECRET}"))
        app = _app(tmp_path, _config(milk_home, llm.url))  # no endpoint: still written
        assert app.runtime.telemetry is None and app.runtime.metrics is not None
        assert (await app.run_turn("what is in notes.txt?", force="primary")).ok
        assert not (await app.run_turn("the second question", force="primary")).ok
        report = await app.local_metrics.areport()
        await app.aclose()
    first, failed = _lines(milk_home)
    assert first["kind"] == "turn" and first["agent"] == "llama" and first["slot"] == "primary"
    assert first["model"] == "qwen-7b" and first["ok"] is True and first["error"] == ""
    assert (first["prompt_tokens"], first["completion_tokens"], first["cache_read"]) == (
        210,
        15,
        40,
    )
    assert first["seconds"] >= first["first_token_seconds"] >= 0
    assert [(t["name"], t["ok"]) for t in first["tools"]] == [("read_file", True)]
    assert first["tools"][0]["seconds"] >= 0
    assert failed["ok"] is False and "500" in failed["error"]
    text = (milk_home / "otel" / "metrics.jsonl").read_text()
    # figures only: no prompt, no reply, no tool argument, no secret
    for word in ("notes.txt", "hello", "second question", SECRET):
        assert word not in text, word
    assert oct((milk_home / "otel" / "metrics.jsonl").stat().st_mode & 0o777) == "0o600"
    (llama,) = report.agents
    assert (llama.turns, llama.errors, llama.tool_calls) == (2, 1, 1)
    assert report.tools == {"read_file": 1}


async def test_metrics_false_writes_nothing(tmp_path, milk_home):
    with FakeOpenAIServer() as llm:
        app = _app(tmp_path, _config(milk_home, llm.url, {"metrics": False}))
        assert app.runtime.metrics is None
        assert (await app.run_turn("hi", force="primary")).ok
        await app.aclose()
    assert not (milk_home / "otel").exists()


async def test_rotated_at_max_keeping_one_old_file_and_warned_once(tmp_path, milk_home):
    # one record is ~330 bytes: warned at the second, three fit before a rotation
    otel = {"warn_mb": 600 / 1048576, "max_mb": 1000 / 1048576}
    with FakeOpenAIServer() as llm:
        app = _app(tmp_path, _config(milk_home, llm.url, otel))
        events: list[ev.BusEvent] = []
        app.add_listener(events.append)
        for i in range(10):
            assert (await app.run_turn(f"turn {i}", force="primary")).ok
            assert app.runtime.metrics is not None and app.runtime.metrics.file.flush(10)
        await app.aclose()
    current, old = _lines(milk_home), _lines(milk_home, "metrics.jsonl.1")
    assert current and old and len(current) + len(old) < 10  # the oldest went with a rotation
    assert (milk_home / "otel" / "metrics.jsonl").stat().st_size <= 1000
    assert not (milk_home / "otel" / "metrics.jsonl.2").exists()
    assert [r["turn"] for r in old + current] == sorted(r["turn"] for r in old + current)
    warns = [e.message for e in events if isinstance(e, ev.Notice) and "otel.warn_mb" in e.message]
    assert len(warns) == 1 and "metrics.jsonl" in warns[0]


async def test_a_full_disk_is_one_notice_and_the_turns_go_on(tmp_path, milk_home):
    """/dev/full answers every write with ENOSPC: the kernel's own disk-full error."""
    if not Path("/dev/full").exists():
        skip_peer_missing("/dev/full (Linux)")
    (milk_home / "otel").mkdir()
    os.symlink("/dev/full", milk_home / "otel" / "metrics.jsonl")
    with FakeOpenAIServer() as llm:
        app = _app(tmp_path, _config(milk_home, llm.url))
        events: list[ev.BusEvent] = []
        app.add_listener(events.append)
        for prompt in ("one", "two"):
            result = await app.run_turn(prompt, force="primary")
            assert result.ok and result.text == "Hello from the fake."
            assert app.runtime.metrics is not None and app.runtime.metrics.file.flush(10)
        log = app.runtime.metrics
        await app.aclose()
    notes = [e.message for e in events if isinstance(e, ev.Notice) and "metrics" in e.message]
    assert len(notes) == 1 and "No space left on device" in notes[0]
    assert log is not None and log.file.dropped == 2 and log.file.written == 0


def test_print_mode_writes_a_line_and_a_full_disk_keeps_the_answer(tmp_path, milk_home):
    with FakeOpenAIServer() as llm:
        _config(milk_home, llm.url)
        r = run_milk("-p", "hello there", "--primary", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        (rec,) = _lines(milk_home)
        assert rec["agent"] == "llama" and rec["ok"] is True
        assert rec["first_token_seconds"] is not None
        if Path("/dev/full").exists():
            (milk_home / "otel" / "metrics.jsonl").unlink()
            os.symlink("/dev/full", milk_home / "otel" / "metrics.jsonl")
            r = run_milk("-p", "hello again", "--primary", cwd=tmp_path)
            assert r.returncode == 0 and r.stdout.strip() == "Hello from the fake."
            assert "metrics not recorded" in r.stderr and "No space left" in r.stderr
