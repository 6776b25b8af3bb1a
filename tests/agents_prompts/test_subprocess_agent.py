"""The subprocess (NDJSON adapter) and aider agents, each a real child process."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from milk_tui.agents.aider_cli import AiderCliAgent
from milk_tui.agents.factory import build_agent
from milk_tui.agents.subprocess_agent import SubprocessAgent
from milk_tui.config.load import load_config
from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.engine.runtime import Runtime, build_runtime
from milk_tui.model import events as ev
from milk_tui.testing import fake_smolagent

FAKE = str(Path(fake_smolagent.__file__))


def _config(**agent: object) -> MilkConfig:
    smol = {"name": "smol", "provider": "subprocess", "bin": FAKE, "model": "qwen-coder", **agent}
    return MilkConfig(
        agent="smol",
        escalation_agent="demo",
        agents=[
            AgentConfig.model_validate(smol),
            AgentConfig(name="demo", provider="demo", model="demo-large"),
        ],
    )


def _runtime(cwd: Path, **agent: object) -> Runtime:
    return build_runtime(cwd=str(cwd), config=_config(**agent), new=True)


async def _turn(rt: Runtime, prompt: str) -> tuple[object, list[ev.BusEvent]]:
    seen: list[ev.BusEvent] = []
    remove = rt.bus.add_listener(seen.append)
    try:
        outcome = await rt.dispatcher.run_turn(prompt, force="primary")
    finally:
        remove()
    return outcome, seen


async def test_a_turn_streams_steps_text_and_usage(milk_home, tmp_path, monkeypatch):
    record = tmp_path / "calls.jsonl"
    monkeypatch.setenv("FAKE_SMOLAGENT_RECORD", str(record))
    rt = _runtime(
        tmp_path,
        url="http://127.0.0.1:8080/v1",
        action_type="tool_calling",
        smolagent_tools=["web_search", "visit_webpage"],
        authorized_imports=["numpy"],
        max_steps=4,
    )
    try:
        first, _ = await _turn(rt, "what is in the folder")
        outcome, seen = await _turn(rt, "and count the files")
    finally:
        await rt.aclose()
    assert first.ok and outcome.ok, outcome.error
    assert outcome.text == "Fake smolagent: and count the files"
    calls = [e for e in seen if isinstance(e, ev.ToolCall)]
    results = [e for e in seen if isinstance(e, ev.ToolResult)]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("python", {"code": "print(42)"})]
    assert [r.content for r in results] == ["42"]
    usage = [e for e in seen if isinstance(e, ev.Usage)]
    assert usage and usage[-1].prompt_tokens == 120 and usage[-1].completion_tokens == 7
    argv, contexts = (
        json.loads(line)[k]
        for k in ("argv", "contexts")
        for line in [record.read_text().splitlines()[-1]]
    )
    i = argv.index("--session-id")
    assert argv[:i] == [
        "--model-type", "OpenAIModel", "--model-id", "qwen-coder",
        "--api-base", "http://127.0.0.1:8080/v1", "--action-type", "tool_calling",
        "--tools", "web_search,visit_webpage", "--authorized-imports", "numpy", "--max-steps", "4",
    ]  # fmt: skip
    assert argv[-2:] == ["--", "and count the files"]
    static, dynamic = contexts
    assert static.startswith("You are smol, the primary agent") and "<milk:need:" in static
    # the stateless adapter gets the earlier exchange as text
    assert "what is in the folder" in dynamic and "Fake smolagent: what is in the folder" in dynamic


async def test_final_answer_is_the_reply_when_nothing_streamed(milk_home, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_SMOLAGENT_MODE", "final")
    rt = _runtime(tmp_path)
    try:
        outcome, _ = await _turn(rt, "sum the numbers please")
    finally:
        await rt.aclose()
    assert outcome.ok and outcome.text == "Final: sum the numbers please"


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("exit1", "smol: fake_smolagent.py exited with code 1: Error: model endpoint refused the connection"),
        ("garbage", "smol: malformed NDJSON line: not a JSON line: 'Traceback (most recent call last): not json'"),
        ("killed", "smol: fake_smolagent.py was killed by signal 9 (SIGKILL)"),
        ("error", "smol: max steps reached"),
    ],
)  # fmt: skip
async def test_a_failing_adapter_is_one_turn_error(milk_home, tmp_path, monkeypatch, mode, message):
    monkeypatch.setenv("FAKE_SMOLAGENT_MODE", mode)
    rt = _runtime(tmp_path)
    try:
        outcome, seen = await _turn(rt, "do the thing now please")
    finally:
        await rt.aclose()
    assert not outcome.ok
    assert message in outcome.error and "\n" not in outcome.error
    failed = [e for e in seen if isinstance(e, ev.TurnFailed)]
    assert len(failed) == 1
    assert rt.dispatcher.state.session.history == []  # nothing recorded


def test_subprocess_and_aider_are_never_built_as_http_agents(milk_home, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(
        json.dumps(
            {
                "agents": [
                    {"name": "smol", "provider": "subprocess", "bin": FAKE},
                    {"name": "aid", "provider": "aider-cli", "model": "gpt-4o"},
                ]
            }
        )
    )
    cfg, warnings, _ = load_config(path)
    assert warnings == []  # no "has no url", no "not supported"
    smol, aid = cfg.agents
    assert isinstance(build_agent(smol, slot="primary", config=cfg), SubprocessAgent)
    assert isinstance(build_agent(aid, slot="primary", config=cfg), AiderCliAgent)


async def test_subprocess_without_bin_is_unavailable_and_says_why(milk_home, tmp_path):
    cfg = _config(bin="")
    agent = build_agent(cfg.agents[0], slot="primary", config=cfg)
    assert await agent.available() is False
    from milk_tui.agents.base import AgentError, AgentRequest

    with pytest.raises(AgentError, match="provider 'subprocess' needs 'bin'"):
        async for _ in agent.stream(AgentRequest(slot="primary", prompt="x", cwd=str(tmp_path))):
            pass


AIDER = """#!{python}
import json, os, sys
if "--version" in sys.argv:
    print("aider 0.99.0"); sys.exit(0)
with open(os.environ["FAKE_AIDER_RECORD"], "a") as f:
    f.write(json.dumps({{"argv": sys.argv[1:], "key": os.environ.get("OPENAI_API_KEY"),
                        "anthropic": os.environ.get("ANTHROPIC_API_KEY")}}) + "\\n")
print("Aider v0.99.0")
print("──────────────")
print("I will fix the bug in app.py.")
print("--- a/app.py")
print("+++ b/app.py")
print("Done.")
sys.exit(int(os.environ.get("FAKE_AIDER_EXIT", "0")))
"""


async def test_aider_runs_from_path_with_its_argv_and_plain_text_reply(
    milk_home, tmp_path, monkeypatch
):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    aider = bindir / "aider"
    aider.write_text(AIDER.format(python=sys.executable))
    aider.chmod(0o755)
    record = tmp_path / "aider.jsonl"
    work = tmp_path / "work"
    work.mkdir()
    (work / "app.py").write_text("print('hi')\n")
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    monkeypatch.setenv("FAKE_AIDER_RECORD", str(record))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-parent-key-1234")
    cfg = MilkConfig(
        agent="aid",
        escalation_agent="demo",
        agents=[
            AgentConfig(
                name="aid", provider="aider-cli", model="gpt-4o", url="http://127.0.0.1:9/v1",
                api_key="sk-config-key-123456", extra_args=["--dark-mode"],
            ),
            AgentConfig(name="demo", provider="demo"),
        ],
    )  # fmt: skip
    rt = build_runtime(cwd=str(work), config=cfg, new=True)
    try:
        assert await rt.dispatcher.state.primary.agent.available()  # type: ignore[union-attr]
        outcome, seen = await _turn(rt, "fix the bug in app.py please")
        monkeypatch.setenv("FAKE_AIDER_EXIT", "2")
        failed, _ = await _turn(rt, "and again for app.py")
    finally:
        await rt.aclose()
    assert outcome.ok, outcome.error
    assert outcome.text.strip() == "I will fix the bug in app.py.\nDone."
    assert [(e.name, e.content) for e in seen if isinstance(e, ev.ToolResult)] == [
        ("edit", "✎ app.py")
    ]
    call = json.loads(record.read_text().splitlines()[0])
    argv = call["argv"]
    assert argv[:12] == [
        "--yes-always", "--no-pretty", "--no-auto-commits", "--edit-format", "diff",
        "--model", "gpt-4o", "--openai-api-base", "http://127.0.0.1:9/v1", "--no-git",
        "--map-tokens", "2048",
    ]  # fmt: skip
    assert "--dark-mode" in argv and argv.count("--read") == 1  # the system prompt; no history yet
    assert argv[-4:] == ["--file", "app.py", "--message", "fix the bug in app.py please"]
    assert call["key"] == "sk-config-key-123456" and call["anthropic"] is None
    assert not failed.ok and failed.error.endswith("aider exited with code 2")


async def test_cancelling_a_turn_kills_the_adapter(milk_home, tmp_path, monkeypatch):
    import asyncio
    import os

    from milk_tui.agents.base import AgentRequest, TextChunk

    record = tmp_path / "calls.jsonl"
    monkeypatch.setenv("FAKE_SMOLAGENT_MODE", "slow")
    monkeypatch.setenv("FAKE_SMOLAGENT_RECORD", str(record))
    agent = SubprocessAgent(_config().agents[0])
    stream = agent.stream(AgentRequest(slot="primary", prompt="wait", cwd=str(tmp_path)))
    first = asyncio.Event()

    async def consume() -> None:
        async for e in stream:
            if isinstance(e, TextChunk):
                first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), 30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    pid = json.loads(record.read_text())["pid"]
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
