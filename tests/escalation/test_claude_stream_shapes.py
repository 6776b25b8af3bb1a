"""A wrong-typed field in what the Claude CLI streams: one turn error naming the field and
the agent, nothing recorded, the next turn fine — through the stdlib fake CLI, and through
the REAL CLI forwarding a wrong-typed API event from the fake Anthropic server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from milk_tui.agents import base as ab
from milk_tui.agents.claude_cli import ClaudeCliAgent
from milk_tui.config.settings import AgentConfig
from milk_tui.testing.claude_rig import CliRig
from milk_tui.testing.fake_anthropic import Reply
from milk_tui.testing.fake_anthropic_reply import TextBlock
from milk_tui.testing.fake_claude_cli import FakeCli

BAD_LINES = {
    "stream_event.event.delta is an array": {
        "type": "stream_event",
        "event": {"type": "content_block_delta", "index": 0, "delta": ["x"]},
    },
    "stream_event.event.delta.text is a number": {
        "type": "stream_event",
        "event": {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": 4},
        },
    },
    "stream_event.event is a string": {"type": "stream_event", "event": "content_block_delta"},
    # Lines the CLI builds itself are not checked field by field; still one clear error.
    "AttributeError": {"type": "user", "message": "not an object"},
}


@pytest.mark.parametrize("field", sorted(BAD_LINES))
async def test_fake_cli_wrong_typed_line_is_one_agent_error(
    field: str, fake_cli: FakeCli, tmp_path: Path
) -> None:
    fake_cli.turns({"raw": [json.dumps(BAD_LINES[field])], "text": "never shown"})
    config = AgentConfig(name="claude", provider="claude-cli", bin=str(fake_cli.bin))
    agent = ClaudeCliAgent(config, env=fake_cli.env)
    request = ab.AgentRequest(slot="escalation", prompt="hi", cwd=str(tmp_path))
    with pytest.raises(ab.AgentError) as err:
        [ev async for ev in agent.stream(request)]
    assert str(err.value).startswith("claude: malformed stream-json line: ")
    assert field in str(err.value) and err.value.agent == "claude"


async def test_real_cli_forwarding_a_wrong_typed_delta_fails_the_turn(cli_rig: CliRig) -> None:
    rig = cli_rig
    bad = Reply(blocks=[TextBlock(text=[1, 2, 3], chunk_size=1)])  # type: ignore[arg-type]  # a list where the API sends a string
    out = await rig.escalate("explain the parser please", bad)
    assert not out.ok
    assert out.error.startswith("claude: malformed stream-json line: ")
    assert "stream_event.event.delta.text is an array" in out.error
    assert rig.reload().history == []
    ok = await rig.escalate("explain the parser please", Reply.text("It reads tokens."))
    assert ok.ok and "It reads tokens." in ok.text
    assert len(rig.reload().history) == 2
