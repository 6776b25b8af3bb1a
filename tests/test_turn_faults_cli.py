"""Turns that go wrong on the wire, through the real ``milk -p`` process and the fake servers:
a wrong-typed chunk, an empty reply, an escalation agent that is missing.  Each ends with
ONE line naming the agent (and the field), exit status 1, no traceback, and nothing
recorded; the next turn works as usual.  (A server dripping bytes past turn_timeout_secs is
warned about, not stopped: tests/day_small/test_turn_timeout.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from milk_tui.storage.db import Database
from milk_tui.testing.cli_run import run_milk as milk
from milk_tui.testing.fake_bedrock import TEST_KEY_ID, TEST_MODEL_ID, TEST_SECRET, FakeBedrock
from milk_tui.testing.fake_bedrock import Reply as BedrockReply
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply


def turns(home: Path) -> int:
    db = Database(home / "milk.db")
    try:
        return db.query("SELECT COUNT(*) FROM turns")[0][0]
    finally:
        db.close()


def openai_config(home: Path, url: str, extra: str = "") -> None:
    (home / "config.toml").write_text(
        f'agent = "fake"\nescalation_agent = "fake"\n[[agents]]\nname = "fake"\n'
        f'provider = "local"\nurl = "{url}"\nmodel = "m"\ntimeout_secs = 30\n{extra}'
    )


def one_error_line(r) -> str:  # noqa: ANN001
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    return r.stderr.strip().splitlines()[-1]


def chunk(delta: object = None, **top: object) -> str:
    body: dict[str, object] = {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    body.update(top)
    return "data: " + json.dumps(body)


OK_HEAD = chunk({"content": "Working on it"})
FINISH = 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}'
WRONG_CHUNKS = {
    "choices[0].delta.content is a number": chunk({"content": 42}),
    "choices[0].delta.tool_calls is an object": chunk({"tool_calls": {"index": 0}}),
    "choices[0].delta is an array": chunk(["content", "x"]),
    "usage is a string": chunk({}, usage="lots"),
    "choices is null": "data: " + json.dumps({"choices": None}),
    "choices[0].delta.tool_calls[0].function.arguments is an object": chunk(
        {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f", "arguments": {}}}]}
    ),
}


@pytest.mark.parametrize("field", sorted(WRONG_CHUNKS))
def test_a_wrong_typed_chunk_is_one_line_naming_field_and_agent(
    field: str, tmp_path: Path, milk_home: Path
) -> None:
    with FakeOpenAIServer() as srv:
        openai_config(milk_home, srv.url)
        srv.enqueue(FakeReply(raw_lines=[OK_HEAD, "", WRONG_CHUNKS[field], "", FINISH, ""]))
        line = one_error_line(milk("-p", "hello there friend", "--primary", cwd=tmp_path))
        assert line.startswith("milk-tui: ") and "agent 'fake'" in line and field in line, line
        assert turns(milk_home) == 0
        srv.enqueue(FakeReply(text=["fine ", "now"]))
        r = milk("-p", "and now a good turn", "--primary", cwd=tmp_path)
        assert r.returncode == 0 and "fine now" in r.stdout, r.stderr
        assert turns(milk_home) == 2


def test_an_empty_reply_is_an_error_and_records_nothing(tmp_path: Path, milk_home: Path) -> None:
    with FakeOpenAIServer() as srv:
        openai_config(milk_home, srv.url)
        srv.enqueue(FakeReply(text=[]))
        line = one_error_line(milk("-p", "say nothing at all", "--primary", cwd=tmp_path))
        assert "agent 'fake'" in line and "empty reply" in line, line
        assert turns(milk_home) == 0


def test_a_missing_escalation_agent_is_never_answered_by_the_demo(
    tmp_path: Path, milk_home: Path
) -> None:
    (milk_home / "config.toml").write_text(
        'agent = "llama"\nescalation_agent = "claude"\n'
        '[[agents]]\nname = "llama"\nprovider = "local"\nurl = "http://127.0.0.1:9"\n'
        '[[agents]]\nname = "claude"\nprovider = "claude-cli"\nbin = "/nonexistent/claude"\n'
    )
    for how in ("--escalate", "--primary"):
        r = milk("-p", "please refactor the whole parser", how, cwd=tmp_path)
        line = one_error_line(r)
        assert "llama" in line and "claude" in line, line
        assert "demo" not in r.stdout + r.stderr and r.stdout == ""
    assert turns(milk_home) == 0


def bedrock_config(home: Path, fake: FakeBedrock) -> None:
    (home / "config.toml").write_text(
        'agent = "rock"\nescalation_agent = "rock"\n[[agents]]\nname = "rock"\n'
        f'provider = "bedrock"\nmodel = "{TEST_MODEL_ID}"\nendpoint_url = "{fake.url}"\n'
        f'aws_region = "us-east-1"\naws_key_id = "{TEST_KEY_ID}"\n'
        f'aws_secret = "{TEST_SECRET}"\ntimeout_secs = 10\n'
    )


BEDROCK_WRONG = {
    "contentBlockDelta.delta.text is a number": (
        "contentBlockDelta",
        {"contentBlockIndex": 0, "delta": {"text": 5}},
    ),
    "metadata.usage.inputTokens is a string": ("metadata", {"usage": {"inputTokens": "3"}}),
    "malformed event from Bedrock (botocore": ("metadata", {"usage": "lots"}),
}


@pytest.mark.parametrize("field", sorted(BEDROCK_WRONG))
def test_a_wrong_typed_bedrock_event_is_one_line(
    field: str, tmp_path: Path, milk_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    with FakeBedrock() as fake:
        bedrock_config(milk_home, fake)
        name, payload = BEDROCK_WRONG[field]
        fake.script(BedrockReply().text("Hel", "lo").raw_event(name, payload))
        line = one_error_line(milk("-p", "hello there rock", "--primary", cwd=tmp_path))
        assert "agent 'rock'" in line and field in line, line
        assert turns(milk_home) == 0
