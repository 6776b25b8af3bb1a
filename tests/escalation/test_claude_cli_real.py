"""ClaudeCliAgent driving the REAL npm Claude CLI against the fake Anthropic server.

Assertions are on what the server RECEIVED (system prompt, messages) and on the events
we normalised — the CLI's own behaviour is the thing under test, not a stub of it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agents.helpers import cancel, stream_until

from milk_tui.agents import base as ab
from milk_tui.agents.claude_cli import ClaudeCliAgent
from milk_tui.agents.process_tree import descendants
from milk_tui.config.settings import AgentConfig
from milk_tui.testing.fake_anthropic import (
    FakeAnthropic,
    Reply,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
)
from milk_tui.testing.waits import until

pytestmark = pytest.mark.real_peer


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    d = tmp_path / "project"
    d.mkdir()
    return d


def _agent(claude_bin: str, env: dict[str, str], **cfg: object) -> ClaudeCliAgent:
    return ClaudeCliAgent(
        AgentConfig(name="claude", provider="claude-cli", bin=claude_bin, **cfg), env=env
    )


async def _collect(agent: ClaudeCliAgent, req: ab.AgentRequest) -> list:
    return [ev async for ev in agent.stream(req)]


def _text(events: list) -> str:
    return "".join(e.text for e in events if isinstance(e, ab.TextChunk))


async def test_first_turn_sends_our_context_then_resume_carries_it(
    claude_bin: str, real_claude_env: dict[str, str], fake_anthropic: FakeAnthropic, workdir: Path
) -> None:
    agent = _agent(claude_bin, real_claude_env)
    assert await agent.available()
    fake_anthropic.push(Reply.text("First answer from the fake."))
    ctx = "[Milk agent context]\nMARKER-STATIC-7f3\n\n[Current user goal]\nMARKER-NEED-19a\n"
    first = await _collect(
        agent,
        ab.AgentRequest(
            slot="escalation", prompt="What is 2+2?", cwd=str(workdir), append_system_prompt=ctx
        ),
    )
    (req1,) = fake_anthropic.message_requests
    assert ctx.strip() in req1.system_text  # our file's text reached the API's system
    assert "What is 2+2?" in req1.last_user_text
    assert _text(first) == "First answer from the fake."
    fin = first[-1]
    assert isinstance(fin, ab.Finished) and fin.session_id
    assert [type(e) for e in first].count(ab.UsageEvent) == 1

    fake_anthropic.push(Reply.text("Second answer."))
    second = await _collect(
        agent,
        ab.AgentRequest(
            slot="escalation", prompt="And 3+3?", cwd=str(workdir), resume_session_id=fin.session_id
        ),
    )
    req2 = fake_anthropic.message_requests[-1]
    assert "What is 2+2?" in req2.all_message_text  # the earlier turn came back via --resume
    assert "First answer from the fake." in req2.all_message_text
    assert "And 3+3?" in req2.last_user_text
    assert "MARKER-STATIC-7f3" not in req2.system_text  # no context file on this call
    assert second[-1].session_id == fin.session_id


async def test_stream_events_thinking_text_tool_and_result(
    claude_bin: str, real_claude_env: dict[str, str], fake_anthropic: FakeAnthropic, workdir: Path
) -> None:
    fake_anthropic.push(
        Reply(
            blocks=[
                ThinkingBlock("considering"),
                TextBlock("Let me check."),
                ToolUseBlock("Bash", {"command": "echo tool-ran-ok"}),
            ],
            input_tokens=30,
            output_tokens=7,
            cache_read=4,
        ),
        Reply.text("All done.", input_tokens=50, output_tokens=3),
    )
    agent = _agent(claude_bin, real_claude_env, allowed_tools=["Bash"])
    events = await _collect(
        agent, ab.AgentRequest(slot="escalation", prompt="run it", cwd=str(workdir))
    )
    assert "considering" in "".join(e.text for e in events if isinstance(e, ab.ThinkingChunk))
    assert _text(events) == "Let me check.\nAll done."
    (call,) = [e for e in events if isinstance(e, ab.ToolCallEvent)]
    assert call.name == "Bash" and json.loads(call.arguments)["command"] == "echo tool-ran-ok"
    (result,) = [e for e in events if isinstance(e, ab.ToolResultEvent)]
    assert result.call_id == call.call_id and "tool-ran-ok" in result.content
    assert not result.is_error
    (usage,) = [e for e in events if isinstance(e, ab.UsageEvent)]
    assert usage.prompt_tokens == 80 and usage.completion_tokens == 10
    assert usage.cache_read == 4 and usage.cost_usd > 0
    # the tool result went back to the API in the second request
    assert fake_anthropic.message_requests[-1].has_tool_result()


async def test_permission_prompt_reaches_our_callback(
    claude_bin: str, real_claude_env: dict[str, str], fake_anthropic: FakeAnthropic, workdir: Path
) -> None:
    # WebFetch is outside the baseline allow-list, so the CLI asks
    fake_anthropic.push(
        Reply.tool("WebFetch", {"url": "http://127.0.0.1:9/page", "prompt": "x"}),
        Reply.text("fetched it"),
    )
    asked: list[ab.PermissionQuestion] = []

    async def ask(q: ab.PermissionQuestion) -> ab.PermissionAnswer:
        asked.append(q)
        return ab.PermissionAnswer(False, reason="not in this test")

    events = await _collect(
        _agent(claude_bin, real_claude_env),
        ab.AgentRequest(
            slot="escalation", prompt="fetch a page", cwd=str(workdir), ask_permission=ask
        ),
    )
    assert [q.tool_name for q in asked] == ["WebFetch"]
    assert asked[0].tool_input["url"] == "http://127.0.0.1:9/page"
    # the CLI's own suggestion is what "Always" would store
    assert asked[0].always_rules == ("WebFetch(domain:127.0.0.1)",)
    (result,) = [e for e in events if isinstance(e, ab.ToolResultEvent)]
    assert result.is_error and "not in this test" in result.content
    # the refusal comes back in the result line, with the rule to grant it
    (denied,) = events[-1].permission_denials
    assert denied.tool_name == "WebFetch" and denied.rules == ("WebFetch(domain:127.0.0.1)",)


@pytest.mark.parametrize(("status", "retryable"), [(401, False), (529, True)])
async def test_api_error_is_an_agent_error_with_the_api_message(
    claude_bin: str,
    real_claude_env: dict[str, str],
    fake_anthropic: FakeAnthropic,
    workdir: Path,
    status: int,
    retryable: bool,
) -> None:
    fake_anthropic.push(Reply.error(status, "token rejected by fake server"))
    with pytest.raises(ab.AgentError) as ei:
        await _collect(
            _agent(claude_bin, real_claude_env),
            ab.AgentRequest(slot="escalation", prompt="hi", cwd=str(workdir)),
        )
    assert str(status) in str(ei.value) and "token rejected by fake server" in str(ei.value)
    assert str(ei.value).startswith("claude: ")
    assert ei.value.status == status and ei.value.retryable is retryable
    assert "dummy" not in str(ei.value)  # the key never leaks into the message


async def test_unknown_session_raises_session_not_found(
    claude_bin: str, real_claude_env: dict[str, str], fake_anthropic: FakeAnthropic, workdir: Path
) -> None:
    with pytest.raises(ab.SessionNotFound):
        await _collect(
            _agent(claude_bin, real_claude_env),
            ab.AgentRequest(
                slot="escalation",
                prompt="hi",
                cwd=str(workdir),
                resume_session_id="00000000-0000-4000-8000-000000000000",
            ),
        )
    assert fake_anthropic.message_requests == []


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def test_cancel_kills_cli_and_its_tool_processes(
    claude_bin: str, real_claude_env: dict[str, str], fake_anthropic: FakeAnthropic, workdir: Path
) -> None:
    pid_file = workdir / "tool.pid"
    fake_anthropic.push(
        Reply.tool("Bash", {"command": f"echo $$ > {pid_file}; sleep 300"}),
        Reply.text("never reached"),
    )
    agent = _agent(claude_bin, real_claude_env, allowed_tools=["Bash"])
    request = ab.AgentRequest(slot="escalation", prompt="sleep", cwd=str(workdir))
    task = await stream_until(agent, request, ab.ToolCallEvent, 60)
    await until(None, lambda: pid_file.exists() and pid_file.read_text().strip())
    tool_shell = int(pid_file.read_text())
    tool_tree = [tool_shell, *descendants(tool_shell)]
    assert all(_alive(p) for p in tool_tree)
    await cancel(task, 60)
    await until(None, lambda: not any(_alive(p) for p in tool_tree), what="the tool's tree reaped")
