"""ClaudeCliAgent against the stdlib fake CLI: argv, permissions, errors, limits, cancel."""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from pathlib import Path

import pytest

from milk_tui.agents import base as ab
from milk_tui.agents.claude_cli import ClaudeCliAgent
from milk_tui.agents.process_io import MAX_LINE_BYTES
from milk_tui.config.settings import AgentConfig
from milk_tui.testing.fake_claude_cli import FakeCli
from milk_tui.testing.waits import until


def _agent(fake_cli: FakeCli, **cfg: object) -> ClaudeCliAgent:
    config = AgentConfig(name="claude", provider="claude-cli", bin=str(fake_cli.bin), **cfg)
    return ClaudeCliAgent(config, env=fake_cli.env)


def _req(tmp_path: Path, prompt: str = "hello", **kw: object) -> ab.AgentRequest:
    return ab.AgentRequest(slot="escalation", prompt=prompt, cwd=str(tmp_path), **kw)


async def _collect(agent: ClaudeCliAgent, req: ab.AgentRequest) -> list:
    return [ev async for ev in agent.stream(req)]


def _flag(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


async def test_fresh_turn_argv_context_file_and_events(fake_cli: FakeCli, tmp_path: Path) -> None:
    fake_cli.turns(
        {
            "thinking": "ponder",
            "text": "The answer.",
            "cost": 0.5,
            "usage": {
                "input_tokens": 11,
                "output_tokens": 4,
                "cache_read_input_tokens": 2,
                "cache_creation_input_tokens": 3,
            },
        }
    )
    agent = _agent(fake_cli, allowed_tools=["Bash", "Read", "Bash"], add_dirs=["/srv/a"])
    events = await _collect(agent, _req(tmp_path, append_system_prompt="STATIC\nDYNAMIC"))
    (call,) = fake_cli.calls
    argv = call["argv"]
    assert argv[:5] == [
        "--print",
        "--output-format",
        "stream-json",
        "--verbose",
        "--include-partial-messages",
    ]
    assert "--model" not in argv and "--resume" not in argv
    assert _flag(argv, "--permission-prompt-tool") == "stdio"
    assert "--dangerously-skip-permissions" not in argv
    # the baseline allow-list first, then the configured tools, each once
    assert _flag(argv, "--allowedTools") == "Bash,Read,Write,Edit"
    dirs = [argv[i + 1] for i, a in enumerate(argv) if a == "--add-dir"]
    assert dirs == ["/srv/a", str(tmp_path), tempfile.gettempdir()]
    assert argv.count("--append-system-prompt-file") == 1
    assert call["context"] == "STATIC\nDYNAMIC"
    assert call["prompt"] == "hello" and call["cwd"] == str(tmp_path)
    sid = _flag(argv, "--session-id")
    assert "".join(e.text for e in events if isinstance(e, ab.TextChunk)) == "The answer."
    assert [e.text for e in events if isinstance(e, ab.ThinkingChunk)] == ["ponder"]
    assert [e for e in events if isinstance(e, ab.UsageEvent)] == [
        ab.UsageEvent("claude", 11, 4, 2, 3, 0.5, "")
    ]
    assert events[-1] == ab.Finished(stop_reason="end_turn", session_id=sid)
    # the temp context file is gone after the turn
    assert not Path(_flag(argv, "--append-system-prompt-file")).exists()


async def test_resume_and_empty_context_and_skip_permissions(
    fake_cli: FakeCli, tmp_path: Path
) -> None:
    fake_cli.turns({"text": "one"}, {"text": "two"})
    agent = _agent(fake_cli, dangerously_skip_permissions=True, model="opus-x")
    first = await _collect(agent, _req(tmp_path))
    sid = first[-1].session_id
    second = await _collect(agent, _req(tmp_path, resume_session_id=sid))
    argv = fake_cli.calls[1]["argv"]
    assert _flag(argv, "--resume") == sid and "--session-id" not in argv
    assert "--append-system-prompt-file" not in argv
    assert "--dangerously-skip-permissions" in argv and "--permission-prompt-tool" not in argv
    assert "--allowedTools" not in argv and "--add-dir" not in argv  # no baseline when skipped
    assert second[-1].session_id == sid
    assert all(e.model == "opus-x" for e in second if isinstance(e, ab.UsageEvent))


@pytest.mark.parametrize("answer", [True, False])
async def test_permission_question_round_trip(
    fake_cli: FakeCli, tmp_path: Path, answer: bool
) -> None:
    fake_cli.turns(
        {"permission": {"tool_name": "Write", "input": {"file_path": "x.txt"}}, "text": "after"}
    )
    asked: list[ab.PermissionQuestion] = []

    async def ask(q: ab.PermissionQuestion) -> ab.PermissionAnswer:
        asked.append(q)
        return ab.PermissionAnswer(answer, reason="" if answer else "the user said no: not here")

    events = await _collect(_agent(fake_cli), _req(tmp_path, ask_permission=ask))
    # no suggestion from the CLI: "Always" would store the bare tool name
    assert asked == [
        ab.PermissionQuestion(
            "claude",
            "Write",
            {"file_path": "x.txt"},
            always_rules=("Write",),
            resolved_paths=(str(tmp_path.resolve() / "x.txt"),),
            grant="Write",
        )
    ]
    resp = fake_cli.calls[0]["control_response"]["response"]
    assert resp["subtype"] == "success" and resp["request_id"].startswith("req_")
    assert resp["response"]["behavior"] == ("allow" if answer else "deny")
    if answer:
        assert resp["response"]["updatedInput"] == {"file_path": "x.txt"}
    else:  # the user's reason reaches the model
        assert resp["response"]["message"] == "permission denied: the user said no: not here"
    results = [e for e in events if isinstance(e, ab.ToolResultEvent)]
    assert results[0].name == "Write" and results[0].is_error is (not answer)
    assert any(isinstance(e, ab.ToolCallEvent) and e.name == "Write" for e in events)


async def test_no_permission_handler_denies(fake_cli: FakeCli, tmp_path: Path) -> None:
    fake_cli.turns({"permission": {"tool_name": "Bash", "input": {"command": "rm -rf /"}}})
    await _collect(_agent(fake_cli), _req(tmp_path))
    assert fake_cli.calls[0]["control_response"]["response"]["response"]["behavior"] == "deny"


async def test_error_result_raises_with_cli_text(fake_cli: FakeCli, tmp_path: Path) -> None:
    fake_cli.turns({"error": "Failed to authenticate. API Error: 401 bad key", "api_status": 401})
    with pytest.raises(ab.AgentError) as ei:
        await _collect(_agent(fake_cli), _req(tmp_path))
    assert not isinstance(ei.value, ab.SessionNotFound)
    assert "API Error: 401 bad key" in str(ei.value) and str(ei.value).startswith("claude:")
    assert ei.value.status == 401 and ei.value.agent == "claude"


async def test_crash_without_result_reports_stderr(fake_cli: FakeCli, tmp_path: Path) -> None:
    fake_cli.turns({"no_result": True, "exit": 3, "stderr": "fatal: something broke"})
    with pytest.raises(ab.AgentError, match="fatal: something broke"):
        await _collect(_agent(fake_cli), _req(tmp_path))


async def test_nonzero_exit_after_success_result_is_an_error(
    fake_cli: FakeCli, tmp_path: Path
) -> None:
    fake_cli.turns({"text": "hi", "exit": 1, "stderr": "late failure"})
    with pytest.raises(ab.AgentError, match="late failure"):
        await _collect(_agent(fake_cli), _req(tmp_path))


async def test_silent_crash_names_the_exit_code(fake_cli: FakeCli, tmp_path: Path) -> None:
    fake_cli.turns({"no_result": True, "exit": 7})
    with pytest.raises(ab.AgentError, match="exited with code 7 and no result"):
        await _collect(_agent(fake_cli), _req(tmp_path))


async def test_unknown_session_raises_session_not_found(fake_cli: FakeCli, tmp_path: Path) -> None:
    fake_cli.turns({"text": "never"})
    with pytest.raises(ab.SessionNotFound, match="no conversation found"):
        await _collect(_agent(fake_cli), _req(tmp_path, resume_session_id="nope-123"))


async def test_ten_mib_line_and_junk_lines_do_not_break_the_turn(
    fake_cli: FakeCli, tmp_path: Path
) -> None:
    big_tool_output = "y" * (MAX_LINE_BYTES - 1024)
    fake_cli.turns(
        {
            "raw": [
                "plain text noise",
                "{broken json",
                json.dumps(
                    {
                        "type": "user",
                        "message": {
                            "content": [
                                {
                                    "type": "tool_result",
                                    "tool_use_id": "t9",
                                    "content": big_tool_output,
                                }
                            ]
                        },
                    }
                ),
            ],
            "big_line": MAX_LINE_BYTES + 4096,  # over the limit: skipped, not fatal
            "text": "still fine",
        }
    )
    debug = tmp_path / "claude-debug.log"
    agent = ClaudeCliAgent(
        AgentConfig(name="claude", provider="claude-cli", bin=str(fake_cli.bin)),
        env=fake_cli.env,
        debug_log=debug,
    )
    events = await _collect(agent, _req(tmp_path))
    big = [e for e in events if isinstance(e, ab.ToolResultEvent)]
    assert len(big) == 1 and len(big[0].content) == len(big_tool_output)
    assert "".join(e.text for e in events if isinstance(e, ab.TextChunk)) == "still fine"
    logged = debug.read_text().splitlines()
    assert any('"type": "system"' in line for line in logged)
    assert "plain text noise" in logged


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def test_cancel_kills_the_whole_process_group(fake_cli: FakeCli, tmp_path: Path) -> None:
    fake_cli.turns({"spawn_child": True, "sleep": 120, "text": "too late"})
    agent = _agent(fake_cli)
    task = asyncio.create_task(_collect(agent, _req(tmp_path)))
    child_file, cli_file = fake_cli.state / "child.pid", fake_cli.state / "cli.pid"
    await until(None, lambda: child_file.exists() and cli_file.exists(), what="both pid files")
    child, cli = int(child_file.read_text()), int(cli_file.read_text())
    assert _alive(child) and _alive(cli)
    assert os.getpgid(child) == os.getpgid(cli) != os.getpgid(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await until(None, lambda: not _alive(child) and not _alive(cli), what="the group reaped")


async def test_available_is_cached_and_reports_missing_binary(
    fake_cli: FakeCli, tmp_path: Path
) -> None:
    agent = _agent(fake_cli)
    assert await agent.available()
    fake_cli.bin.unlink()
    assert await agent.available()  # cached
    missing = ClaudeCliAgent(
        AgentConfig(name="c", provider="claude-cli", bin=str(tmp_path / "no-such-claude"))
    )
    assert not await missing.available()
    with pytest.raises(ab.AgentError, match="cannot start"):
        await _collect(missing, _req(tmp_path))


async def test_debug_log_and_errors_never_show_secret_env_values(
    fake_cli: FakeCli, tmp_path: Path
) -> None:
    secret = "sk-ant-test-0123456789abcdef"
    fake_cli.turns(
        {
            "tool": {
                "name": "Bash",
                "input": {"command": "env"},
                "result": f"ANTHROPIC_API_KEY={secret}\ntoken = next(it)",
            },
            "error": f"proxy said: bad key {secret}",
        }
    )
    debug = tmp_path / "wire.log"
    agent = ClaudeCliAgent(
        AgentConfig(name="claude", provider="claude-cli", bin=str(fake_cli.bin)),
        env={**fake_cli.env, "ANTHROPIC_API_KEY": secret},
        debug_log=debug,
    )
    events: list = []
    with pytest.raises(ab.AgentError) as ei:
        async for ev in agent.stream(_req(tmp_path)):
            events.append(ev)
    (result,) = [e for e in events if isinstance(e, ab.ToolResultEvent)]
    assert result.content == "ANTHROPIC_API_KEY=***\ntoken = next(it)"
    assert secret not in str(ei.value) and "proxy said: bad key" in str(ei.value)
    log = debug.read_text()
    assert "ANTHROPIC_API_KEY=" in log and secret not in log
