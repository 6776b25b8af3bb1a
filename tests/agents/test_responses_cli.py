"""``milk -p`` as a user runs it (a real subprocess, a real config file, a real database)
with an agent whose entry says ``api_format: "responses"``: a Go milk config.json entry
of that shape answers through the fake Responses API server, tools included."""

from __future__ import annotations

import json
from pathlib import Path

from milk_tui.model.events import parse_event
from milk_tui.testing.cli_run import run_milk
from milk_tui.testing.fake_openai_responses import (
    FakeResponsesServer,
    FakeToolCall,
    ResponsesReply,
    responses_usage,
)


def write_config(milk_home: Path, url: str, **extra: object) -> None:
    agent = {"name": "gpt", "provider": "openai", "url": url, "model": "gpt-test"}
    agent |= {"api_key": "sk-cli-test-0123", "api_format": "responses", **extra}
    config = {"agent": "gpt", "escalation_agent": "gpt", "agents": [agent]}
    (milk_home / "config.json").write_text(json.dumps(config))


def test_print_mode_answers_over_the_responses_api(tmp_path: Path, milk_home: Path) -> None:
    (tmp_path / "notes.txt").write_text("the answer is 42\n")
    with FakeResponsesServer() as srv:
        srv.enqueue(
            ResponsesReply(
                reasoning=["look it up"],
                tool_calls=[FakeToolCall("read_file", '{"path": "notes.txt"}', id="c1")],
                usage=responses_usage(200, 20, cached=150),
            ),
            ResponsesReply(text=["It is ", "42."], usage=responses_usage(260, 4, cached=200)),
        )
        write_config(milk_home, srv.url, temperature=0.1)
        r = run_milk(
            "-p", "what does notes.txt say?", "--primary", "--output-format", "stream-json",
            cwd=tmp_path,
        )  # fmt: skip
        requests = [q.json for q in srv.chat_requests]
    assert r.returncode == 0, r.stderr
    assert "api_format" not in r.stderr  # a key that works is never reported as ignored
    events = [parse_event(line) for line in r.stdout.splitlines()]
    shown = "".join(e.text for e in events if e.type == "text_delta")
    assert shown == "It is 42."
    tool = next(e for e in events if e.type == "tool_result")
    assert "the answer is 42" in tool.content
    usage = [
        (e.prompt_tokens, e.completion_tokens, e.cache_read) for e in events if e.type == "usage"
    ]
    assert usage == [(50, 20, 150), (60, 4, 200)]  # one per round, cached tokens apart
    assert len(requests) == 2 and all(q["temperature"] == 0.1 for q in requests)
    assert requests[1]["input"][-1]["type"] == "function_call_output"
    assert "sk-cli-test-0123" not in r.stdout + r.stderr


def test_print_mode_reports_a_failed_response_in_one_line(tmp_path: Path, milk_home: Path) -> None:
    with FakeResponsesServer() as srv:
        srv.default_reply = ResponsesReply(
            text=["half"], failed="quota exhausted for sk-cli-test-0123"
        )
        write_config(milk_home, srv.url)
        r = run_milk("-p", "hello there friend", "--primary", cwd=tmp_path)
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert "gpt" in last and "quota exhausted" in last
    assert "Traceback" not in r.stderr and "sk-cli-test-0123" not in r.stderr
