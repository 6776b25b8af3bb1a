"""The Claude CLI's debug log never holds a key, not even one the CLI streams across several
stream-json lines (one text delta each)."""

from __future__ import annotations

import json
from pathlib import Path

from milk_tui.agents import base as ab
from milk_tui.agents.claude_cli import ClaudeCliAgent
from milk_tui.config.settings import AgentConfig
from milk_tui.testing.fake_claude_cli import FakeCli

SECRET = "sk-ant-api03-Hq4Zt7Wm2Kc9"


def _deltas(log: str) -> str:
    """The reply as the log's text_delta lines spell it."""
    out = []
    for line in log.splitlines():
        if '"text_delta"' in line:
            out.append(json.loads(line)["event"]["delta"]["text"])
    return "".join(out)


async def test_a_key_streamed_across_delta_lines_is_masked_in_the_debug_log(
    fake_cli: FakeCli, tmp_path: Path
) -> None:
    reply = f"The key is {SECRET} as requested"
    fake_cli.turns({"text": reply})  # the fake streams a text in three deltas
    debug = tmp_path / "data" / "wire.log"
    agent = ClaudeCliAgent(
        AgentConfig(name="claude", provider="claude-cli", bin=str(fake_cli.bin)),
        env={**fake_cli.env, "ANTHROPIC_API_KEY": SECRET},
        debug_log=debug,
    )
    req = ab.AgentRequest(slot="escalation", prompt="what is my key", cwd=str(tmp_path))
    events = [e async for e in agent.stream(req)]
    assert any(isinstance(e, ab.Finished) for e in events)
    log = debug.read_text()
    spelled = _deltas(log)
    assert spelled.startswith("The key is ") and spelled.endswith(" as requested")
    assert SECRET not in spelled and SECRET not in log
    assert SECRET[4:12] not in log  # not even a large piece of it
