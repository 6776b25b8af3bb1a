"""The REAL Claude CLI as a primary's tool (``agent_claude``), permissions skipped as the
config requires; the fake Anthropic server answers.  Stateless: a fresh CLI session that
sees only the request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.facade.application import start
from milk_tui.model import events as ev
from milk_tui.testing.fake_anthropic import FakeAnthropic, Reply
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall

pytestmark = pytest.mark.real_peer


async def test_primary_asks_the_claude_cli(
    claude_bin: str,
    real_claude_env: dict[str, str],
    fake_anthropic: FakeAnthropic,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for k, v in real_claude_env.items():
        monkeypatch.setenv(k, v)
    # The CLI refuses --dangerously-skip-permissions as root outside a declared sandbox.
    monkeypatch.setenv("IS_SANDBOX", "1")
    fake_anthropic.push(Reply.text("Use a B-tree index.", input_tokens=40, output_tokens=6))
    with FakeOpenAIServer() as primary:
        call = FakeToolCall(
            "agent_claude", json.dumps({"request": "Which index for range scans?"}), id="c1"
        )
        primary.enqueue(FakeReply(tool_calls=[call]), FakeReply(text=["Claude suggests a B-tree."]))
        cfg = MilkConfig(
            agent="cheap",
            escalation_agent="cheap",
            agents=[
                AgentConfig(name="cheap", provider="local", url=primary.url, model="m"),
                AgentConfig(
                    name="claude",
                    provider="claude-cli",
                    bin=claude_bin,
                    dangerously_skip_permissions=True,
                ),
            ],
            agent_tools=[{"agent": "claude"}],
        )
        app = start(cwd=str(tmp_path), config=cfg, permission_policy="allow")
        events: list[object] = []
        app.add_listener(events.append)
        try:
            out = await app.run_turn("ask claude", force="primary")
        finally:
            await app.aclose()
        assert out.ok and out.text == "Claude suggests a B-tree."
        msgs = primary.chat_requests[-1].json["messages"]
        (tool,) = [m for m in msgs if m["role"] == "tool"]
        assert json.loads(tool["content"]) == {"output": "Use a B-tree index."}
    (sent,) = fake_anthropic.message_requests
    assert sent.last_user_text.endswith("Which index for range scans?")
    assert "You see nothing of its conversation" in sent.system_text
    assert "assistant" not in [m["role"] for m in sent.messages]  # nothing of the session
    (usage,) = [e for e in events if isinstance(e, ev.Usage) and e.role == "primary:agent_claude"]
    assert (usage.prompt_tokens, usage.completion_tokens) == (40, 6) and usage.cost_usd > 0
    (decided,) = [e for e in events if isinstance(e, ev.PermissionDecided)]
    assert (decided.tool_name, decided.how) == ("agent_claude", "skip")  # effect "run": checked
