"""A reply the backend stopped at its token limit says so, where a person reads it: one
stderr line in print mode, a ``reply_truncated`` event in stream-json, a line in the TUI's
conversation (tests/day_turns/test_reply_cut_tui.py).  Each wire shape, through ``milk -p``
as a user runs it: chat completions, the Responses API, Bedrock, the real Claude CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from milk_tui.model.events import parse_event
from milk_tui.testing.cli_run import run_milk
from milk_tui.testing.fake_anthropic import FakeAnthropic, claude_env
from milk_tui.testing.fake_anthropic import Reply as AnthropicReply
from milk_tui.testing.fake_bedrock import FakeBedrock
from milk_tui.testing.fake_bedrock import Reply as BedrockReply
from milk_tui.testing.fake_bedrock import agent_config as bedrock_config
from milk_tui.testing.fake_claude_cli import FakeCli
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.testing.fake_openai_responses import FakeResponsesServer, ResponsesReply

PROMPT = "tell me a long story about a lighthouse"


@pytest.fixture
def fake_cli(tmp_path: Path) -> FakeCli:
    return FakeCli(tmp_path / "fake-cli")


def _config(milk_home: Path, primary: dict[str, object]) -> None:
    config = {
        "agent": primary["name"],
        "escalation_agent": "demo",
        "agents": [primary, {"name": "demo", "provider": "demo"}],
    }
    (milk_home / "config.json").write_text(json.dumps(config))


def _both_ways(tmp_path: Path, env: dict[str, str] | None = None) -> tuple[str, list]:
    """(stderr of a plain run, events of a stream-json run) of the same cut reply."""
    plain = run_milk("-p", PROMPT, "--primary", cwd=tmp_path, env=env)
    assert plain.returncode == 0, plain.stderr
    js = run_milk(
        "-p", PROMPT, "--primary", "--output-format", "stream-json", cwd=tmp_path, env=env
    )  # fmt: skip
    assert js.returncode == 0, js.stderr
    return plain.stderr, [parse_event(line) for line in js.stdout.splitlines()]


def _cut(events: list) -> list:
    return [e for e in events if e.type == "reply_truncated"]


def test_chat_completions_length(tmp_path: Path, milk_home: Path) -> None:
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["Once upon a ti"], finish_reason="length")
        _config(milk_home, {"name": "llama", "provider": "local", "url": srv.url, "max_tokens": 16})
        err, events = _both_ways(tmp_path)
    assert "milk-tui: llama: reply cut at max_tokens (16); it is incomplete" in err.splitlines()
    (cut,) = _cut(events)
    assert (cut.finish_reason, cut.max_tokens, cut.slot) == ("length", 16, "primary")
    # the line comes after the reply's text and before the turn's end
    types = [e.type for e in events]
    assert (
        types.index("text_delta") < types.index("reply_truncated") < types.index("turn_completed")
    )


def test_a_reply_that_finished_says_nothing(tmp_path: Path, milk_home: Path) -> None:
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["The end."])
        _config(milk_home, {"name": "llama", "provider": "local", "url": srv.url, "max_tokens": 16})
        err, events = _both_ways(tmp_path)
    assert "reply cut" not in err and not _cut(events)


def test_responses_api_incomplete_at_max_output_tokens(tmp_path: Path, milk_home: Path) -> None:
    with FakeResponsesServer() as srv:
        srv.default_reply = ResponsesReply(text=["Once upon"], incomplete="max_output_tokens")
        _config(
            milk_home,
            {"name": "gpt", "provider": "openai", "url": srv.url, "model": "gpt-test",
             "api_key": "sk-test-0123", "api_format": "responses", "max_tokens": 9},
        )  # fmt: skip
        err, events = _both_ways(tmp_path)
    assert "milk-tui: gpt: reply cut at max_tokens (9); it is incomplete" in err.splitlines()
    (cut,) = _cut(events)
    assert cut.finish_reason == "max_output_tokens"


def test_bedrock_max_tokens(tmp_path: Path, milk_home: Path, fake_bedrock: FakeBedrock) -> None:
    for _ in range(2):
        fake_bedrock.script(BedrockReply().text("Once upon").usage(11, 7).stop("max_tokens"))
    cfg = bedrock_config(fake_bedrock).model_dump(exclude_defaults=True)
    _config(milk_home, cfg)
    err, events = _both_ways(tmp_path, env=os.environ.copy())
    # no max_tokens configured: the reply's own token count is the limit it reached
    assert "milk-tui: bedrock-claude: reply cut at max_tokens (7); it is incomplete" in err
    (cut,) = _cut(events)
    assert cut.finish_reason == "max_tokens"


def test_claude_cli_result_stop_reason_max_tokens(
    tmp_path: Path, milk_home: Path, fake_cli: FakeCli
) -> None:
    """A CLI whose ``result`` says ``stop_reason: max_tokens`` (the stream-json field)."""
    fake_cli.turns(*[{"text": "Once upon", "stop_reason": "max_tokens"}] * 2)
    _config(milk_home, {"name": "claude", "provider": "claude-cli", "bin": str(fake_cli.bin)})
    err, events = _both_ways(tmp_path, env={**os.environ, **fake_cli.env})
    assert "milk-tui: claude: reply cut at max_tokens" in err
    (cut,) = _cut(events)
    assert cut.finish_reason == "max_tokens"


@pytest.mark.real_peer
def test_real_claude_cli_at_max_tokens_fails_the_turn_in_one_line(
    tmp_path: Path, milk_home: Path, fake_anthropic: FakeAnthropic, claude_bin: str
) -> None:
    """The real CLI never hands over a cut reply: it asks again, then ends the turn with an
    error that names the limit; that error is the one line the user reads."""
    fake_anthropic.default = AnthropicReply.text("Once upon", output_tokens=12, stop="max_tokens")
    _config(milk_home, {"name": "claude", "provider": "claude-cli", "bin": claude_bin})
    env = {**os.environ, **claude_env(tmp_path, fake_anthropic.url)}
    r = run_milk("-p", PROMPT, "--primary", cwd=tmp_path, env=env)
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("milk-tui: claude: ") and "output token maximum" in last
