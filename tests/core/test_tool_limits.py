"""Per-agent tool filters and limits through the real dispatcher, an end-to-end turn where
the primary writes a file and runs it, and the config warnings for keys that do nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from milk_tui.agents.base import TextChunk
from milk_tui.agents.openai_compat import OpenAICompatAgent
from milk_tui.config import load_config
from milk_tui.config.settings import AgentConfig, AgentLimits, MilkConfig
from milk_tui.engine.dispatch import AgentSlot
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall
from milk_tui.testing.scripted_agent import Hold, say
from milk_tui.testing.waits import until


def offered(rig) -> set[str]:  # noqa: ANN001
    tools = rig.primary.requests[-1].tools
    return {s.name for s in tools.specs()}


async def test_included_and_excluded_tools_shape_the_toolbox(rig) -> None:
    await rig.dispatcher.run_turn("list the files please", force="primary")
    full = offered(rig)
    assert {"bash", "write_file", "http_get", "get_session_context", "escalate"} <= full
    rig.dispatcher.primary.config.limits = AgentLimits(
        included_tools=["read_file", "GREP", "bash"], excluded_tools=["Bash", "escalate"]
    )
    await rig.dispatcher.run_turn("list the files again", force="primary")
    names = offered(rig)
    assert {"read_file", "grep", "current_need"} <= names
    assert not names & {"bash", "escalate", "write_file", "http_get", "get_session_context"}
    refused = await rig.primary.requests[-1].tools.call("bash", '{"command": "echo hi"}')
    assert refused.is_error and "unknown tool" in refused.content


async def test_a_turn_past_its_turn_timeout_is_warned_about_once_and_goes_on(rig) -> None:
    # The turn holds until the warning (at 1 s) is said, then ends at once.
    rig.dispatcher.primary.config.limits = AgentLimits(turn_timeout_secs=1)
    hold = Hold()
    rig.primary.push([TextChunk("a"), hold, *say("b", "c", "d")])
    task = rig.dispatcher.submit("a slow one please", force="primary")
    await until(
        None,
        lambda: any("turn_timeout_secs" in e.message for e in rig.of("notice")),
        what="the warning at the turn timeout",
    )
    hold.release()
    out = await task
    assert out.ok and out.text == "abcd"
    [warning] = [e for e in rig.of("notice") if "turn_timeout_secs" in e.message]
    assert warning.level == "warning" and "llama" in warning.message and "1s" in warning.message
    assert "it goes on" in warning.message and "Ctrl+C" in warning.message
    assert len(rig.reload().history) == 2
    rig.primary.push(say("quick"))
    assert (await rig.dispatcher.run_turn("a quick one now", force="primary")).ok
    assert len([e for e in rig.of("notice") if "turn_timeout_secs" in e.message]) == 1


def test_turn_timeout_resolution() -> None:
    cfg = MilkConfig()
    ac = AgentConfig(name="a")
    assert cfg.resolve_turn_timeout(ac) == 600
    ac.limits.turn_timeout_secs = -1
    assert cfg.resolve_turn_timeout(ac) is None
    ac.limits.turn_timeout_secs = 5
    assert cfg.resolve_turn_timeout(ac) == 5
    assert cfg.resolve_memory_result_max_bytes(ac) == 2048
    ac.limits.memory_result_max_bytes = 100
    assert cfg.resolve_memory_result_max_bytes(ac) == 100


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        yield srv


async def test_primary_writes_a_file_then_runs_it(rig, server) -> None:
    """Scripted model: write_file, then bash on what it wrote, then an answer — through the
    real OpenAI-compatible agent, the one tool loop and the dispatcher."""
    ac = AgentConfig(name="llama", provider="local", url=server.url, model="m")
    rig.dispatcher.primary = AgentSlot("primary", ac, OpenAICompatAgent(ac))
    rig.dispatcher.permission_policy = "allow"  # what `-p --allow-tools` sets
    script = "echo made-by-$(basename $PWD)"
    server.enqueue(
        FakeReply(
            tool_calls=[
                FakeToolCall(
                    name="write_file", arguments=json.dumps({"path": "s.sh", "content": script})
                )
            ]
        ),
        FakeReply(
            tool_calls=[
                FakeToolCall(name="bash", arguments=json.dumps({"command": "sh s.sh; exit 2"}))
            ]
        ),
        FakeReply(text=["done"]),
    )
    out = await rig.dispatcher.run_turn("write a script and run it", force="primary")
    assert out.ok and out.text == "done"
    assert (Path(rig.cwd) / "s.sh").read_text() == script
    results = rig.of("tool_result")
    assert [r.name for r in results] == ["write_file", "bash"]
    assert f"made-by-{Path(rig.cwd).name}" in results[1].content and results[1].is_error
    sent = [m for m in server.chat_requests[-1].json["messages"] if m["role"] == "tool"]
    bash_result = json.loads(sent[-1]["content"])
    assert bash_result == {"output": f"made-by-{Path(rig.cwd).name}\n", "exit_code": 2}
    assert [t.role for t in rig.reload().history] == ["user", "assistant"]


def test_go_keys_that_do_nothing_are_named(tmp_path: Path) -> None:
    f = tmp_path / "config.json"
    f.write_text(
        json.dumps(
            {
                "default_route": "local",
                "update_check": True,
                "mcp_servers": [{"name": "fs"}],
                "colorization": "full",
                "direct_bash": False,
                "debug_local": True,
                "loop_detection": {"enabled": True},
                "agents": [
                    {
                        "name": "a",
                        "provider": "demo",
                        "prompt": "be brief",
                        "system_prompt_tier": "full",
                        "limits": {"included_tools": ["bash"], "turn_timeout_secs": 30},
                    }
                ],
            }
        )
    )
    _, warnings, _ = load_config(f)
    text = "\n".join(warnings)
    assert "'debug_local'" in text and "loop_detection" not in text
    assert "mcp server 'fs': transport stdio needs a command" in text
    assert "agents[0].prompt" not in text and "system_prompt_tier" not in text  # both work
    for works in (
        "default_route", "update_check", "direct_bash", "included_tools", "turn_timeout",
        "colorization",
    ):  # fmt: skip
        assert works not in text
