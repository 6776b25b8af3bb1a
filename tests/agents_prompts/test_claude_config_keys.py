"""claude-cli ``settings`` and ``extra_args`` reach the REAL Claude CLI (it talks to the fake
Anthropic server, which records what the CLI did with them)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from milk_tui.agents import base as ab
from milk_tui.agents.claude_cli import ClaudeCliAgent
from milk_tui.config.settings import AgentConfig
from milk_tui.testing.fake_anthropic import FakeAnthropic, Reply

pytestmark = pytest.mark.real_peer


async def _turn(agent: ClaudeCliAgent, cwd: Path) -> str:
    req = ab.AgentRequest(slot="escalation", prompt="say hi", cwd=str(cwd))
    events = [e async for e in agent.stream(req)]
    return "".join(e.text for e in events if isinstance(e, ab.TextChunk))


def _settings_files(tmp: Path) -> list[Path]:
    assert tempfile.gettempdir() == str(tmp)  # where the agent writes its settings file
    return list(tmp.glob("milk-settings-*.json"))


async def test_settings_object_and_extra_args_reach_the_cli(
    claude_bin: str,
    real_claude_env: dict[str, str],
    fake_anthropic: FakeAnthropic,
    tmp_path: Path,
    private_tmpdir: Path,
) -> None:
    agent = ClaudeCliAgent(
        AgentConfig(
            name="claude",
            provider="claude-cli",
            bin=claude_bin,
            settings={"model": "claude-model-from-settings"},
        ),
        env=real_claude_env,
    )
    fake_anthropic.push(Reply.text("hi from settings"))
    assert await _turn(agent, tmp_path) == "hi from settings"
    assert fake_anthropic.message_requests[-1].body["model"] == "claude-model-from-settings"
    assert _settings_files(private_tmpdir) == []  # the temp file is gone after the turn

    agent = ClaudeCliAgent(
        AgentConfig(
            name="claude",
            provider="claude-cli",
            bin=claude_bin,
            settings={"model": "claude-model-from-settings"},
            extra_args="--model claude-model-from-extra-args",  # a Go config's one string
        ),
        env=real_claude_env,
    )
    fake_anthropic.push(Reply.text("hi from extra args"))
    assert await _turn(agent, tmp_path) == "hi from extra args"
    # the user's flag comes last and beats the settings file
    assert fake_anthropic.message_requests[-1].body["model"] == "claude-model-from-extra-args"


async def test_a_bad_extra_arg_is_one_turn_error(
    claude_bin: str, real_claude_env: dict[str, str], tmp_path
) -> None:
    agent = ClaudeCliAgent(
        AgentConfig(
            name="claude", provider="claude-cli", bin=claude_bin, extra_args=["--no-such-flag"]
        ),
        env=real_claude_env,
    )
    with pytest.raises(ab.AgentError) as err:
        await _turn(agent, tmp_path)
    assert "no-such-flag" in str(err.value)
