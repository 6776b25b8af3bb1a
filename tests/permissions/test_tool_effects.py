"""Every tool declares its effect, and agents offered as tools that can run programs are
``run``: asking the subprocess (smolagents) agent is asked about in the facade and denied
under ``-p`` without ``--allow-tools`` — a real child process that must not start."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from milk_tui.agents.base import ToolSpec
from milk_tui.agents.mcp.manager import McpManager
from milk_tui.agents.mcp.toolbox import path_args_of
from milk_tui.agents.tools.box import CompositeToolBox
from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.engine.agent_tool import AGENT_TOOL_EFFECTS, agent_tools
from milk_tui.engine.request_builder import RequestBuilder
from milk_tui.model import events as ev
from milk_tui.testing import fake_smolagent
from milk_tui.testing import mcp_peers as peers
from milk_tui.testing.cli_run import run_milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply

from .rig import answering, call, of, results, script

EFFECTS = ("read", "write", "run", "network")
FAKE_SMOL = str(Path(fake_smolagent.__file__))
PROVIDERS = ("local", "openrouter", "bedrock", "demo", "claude-cli", "aider-cli", "subprocess")
"""One of each ``AgentConfig.kind`` (local/openrouter are both ``openai``)."""


def every_kind_config(url: str) -> MilkConfig:
    agents = [AgentConfig(name="fake", provider="local", url=url, model="m")] + [
        AgentConfig(
            name=f"t-{p}",
            provider=p,
            url=url,
            model="x",
            bin=FAKE_SMOL,
            dangerously_skip_permissions=True,
        )  # fmt: skip
        for p in PROVIDERS
    ]
    return MilkConfig(
        agent="fake",
        escalation_agent="fake",
        agents=agents,
        agent_tools=[{"agent": f"t-{p}"} for p in PROVIDERS],
    )


def test_agent_tools_that_can_run_programs_are_run_and_only_chat_agents_read() -> None:
    cfg = every_kind_config("http://127.0.0.1:9/v1")
    got = {t.target.provider: t.spec.effect for t in agent_tools(cfg, cfg.agents[0])}
    assert got == {
        "local": "read",
        "openrouter": "read",
        "bedrock": "read",
        "demo": "read",
        "claude-cli": "run",
        "aider-cli": "run",
        "subprocess": "run",
    }
    kinds = {a.kind for a in cfg.agents}
    assert kinds <= set(AGENT_TOOL_EFFECTS), "an agent kind without an entry in the table"


def undeclared(specs: list[ToolSpec]) -> list[str]:
    return [s.name for s in specs if s.effect not in EFFECTS]


async def test_every_tool_of_a_turn_declares_its_effect(
    srv: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The built-in, session, memory and agent tools of a real turn's tool box."""
    boxes: list[CompositeToolBox] = []
    original = RequestBuilder._toolbox

    def capture(self: RequestBuilder, *a: Any, **kw: Any) -> CompositeToolBox:
        boxes.append(original(self, *a, **kw))
        return boxes[-1]

    monkeypatch.setattr(RequestBuilder, "_toolbox", capture)
    srv.enqueue(FakeReply(text=["hi"]))
    from milk_tui.facade.application import start

    app = start(cwd=str(tmp_path), config=every_kind_config(srv.url))
    try:
        assert (await app.run_turn("hello", force="primary")).ok
    finally:
        await app.aclose()
    (box,) = boxes
    specs = box.specs()
    names = {s.name for s in specs}
    assert {"read_file", "bash", "get_session_context", "agent_t_subprocess"} <= names
    assert {"get_memory", "forget_memory"} <= names  # the memory box is in the turn
    assert undeclared(specs) == []


@pytest.mark.real_peer
async def test_every_mcp_tool_declares_its_effect_and_its_path_arguments(tmp_path: Path) -> None:
    manager = McpManager(
        [peers.own("files", "files")], log_dir=tmp_path / "logs", cwd=str(tmp_path),
        on_warning=lambda w: None,
    )  # fmt: skip
    try:
        await manager.wait_settled(30)
        specs = manager.toolbox().specs()
    finally:
        await manager.aclose()
    assert "mcp__files__write_note" in {s.name for s in specs}
    assert undeclared(specs) == [] and {s.effect for s in specs} == {"run"}
    note = next(s for s in specs if s.name == "mcp__files__write_note")
    assert note.path_args == ("path",)


def test_path_arguments_of_an_mcp_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "paths": {"type": "array", "items": {"type": "string"}},
            "output_dir": {"type": "string"},
            "where": {"type": "string", "format": "path"},
            "text": {"type": "string"},
            "file": {"type": "integer"},
        },
    }
    assert path_args_of(schema) == ("path", "paths", "output_dir", "where")


def smol_config(url: str) -> MilkConfig:
    return MilkConfig(
        agent="fake",
        escalation_agent="fake",
        agents=[
            AgentConfig(name="fake", provider="local", url=url, model="m"),
            AgentConfig(name="smol", provider="subprocess", bin=FAKE_SMOL, model="qwen"),
        ],
        agent_tools=[{"agent": "smol"}],
    )


async def test_asking_the_subprocess_agent_is_asked_about_first(
    srv: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "ran.jsonl"
    monkeypatch.setenv("FAKE_SMOLAGENT_RECORD", str(record))
    proj = tmp_path / "proj"
    proj.mkdir()
    from milk_tui.facade.application import start

    app = start(cwd=str(proj), config=smol_config(srv.url), permission_policy="ask")
    events: list[Any] = []
    app.add_listener(events.append)
    answers = iter([{"allow": False}, {"allow": True}])
    answering(app, lambda q: next(answers))
    script(srv, call("agent_smol", "no", request="list the files"))
    script(srv, call("agent_smol", "yes", request="count the files"))
    try:
        assert (await app.run_turn("ask smol", force="primary")).ok
        assert not record.exists()  # said no: the child never started
        assert (await app.run_turn("ask smol again", force="primary")).ok
    finally:
        await app.aclose()
    asked = of(events, ev.PermissionRequested)
    assert [(q.tool_name, q.effect) for q in asked] == [("agent_smol", "run")] * 2
    assert results(srv)["yes"] == "Fake smolagent: count the files"
    assert len(record.read_text().splitlines()) == 1


def test_print_mode_without_allow_tools_denies_the_subprocess_agent(tmp_path: Path) -> None:
    home, proj = tmp_path / "milk-home", tmp_path / "proj"
    proj.mkdir()
    record = tmp_path / "ran.jsonl"
    env = {**os.environ, "MILK_HOME": str(home), "FAKE_SMOLAGENT_RECORD": str(record)}
    with FakeOpenAIServer() as srv:
        cfg = smol_config(srv.url).model_dump(include={"agent", "escalation_agent"})
        cfg["agents"] = [
            {"name": "fake", "provider": "local", "url": srv.url, "model": "m"},
            {"name": "smol", "provider": "subprocess", "bin": FAKE_SMOL, "model": "qwen"},
        ]
        cfg["agent_tools"] = [{"agent": "smol"}]
        (home / "config.json").write_text(json.dumps(cfg))
        env["MILK_CONFIG"] = str(home / "config.json")
        script(srv, call("agent_smol", "s", request="delete everything"))
        r = run_milk(
            "-p", "ask smol", "--primary", "--output-format", "stream-json", cwd=proj, env=env
        )
        told = results(srv)
    assert r.returncode == 0, r.stderr
    assert not record.exists()  # the child was never started
    assert told["s"].startswith("permission denied: agent_smol needs the user's permission")
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    (decided,) = [e for e in lines if e["type"] == "permission_decided"]
    assert (decided["tool_name"], decided["allowed"], decided["how"]) == (
        "agent_smol",
        False,
        "headless",
    )
