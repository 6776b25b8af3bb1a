"""The ``claude-code`` mode: ``claude -p --output-format stream-json --verbose`` run in the
scenario's folder, the REAL CLI against the fake Anthropic server; the second turn continues
the first's conversation.  Without ``claude`` on PATH the mode is skipped with one line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from eval.rig import config_text, env_with, run_eval, turns, write
from milk_tui.eval import records as rec
from milk_tui.testing.fake_anthropic import FakeAnthropic, Reply

pytestmark = pytest.mark.real_peer

TWO_TURNS = """
name: look-around
turns:
  - {prompt: list the text files, route: primary}
  - {prompt: and now say second, route: primary}
"""


def test_the_claude_code_mode_reads_the_clis_own_lines(
    claude_bin: str, real_claude_env: dict[str, str], fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    fake_anthropic.push(
        Reply.tool("Glob", {"pattern": "*.txt"}, input_tokens=30, output_tokens=5),
        Reply.text("found none", input_tokens=40, output_tokens=6, cache_read=10),
        Reply.text("second", input_tokens=50, output_tokens=2, cache_read=100),
    )
    folder = write(tmp_path / "sc", "t.yaml", TWO_TURNS)
    results = tmp_path / "res"
    (tmp_path / "config.toml").write_text(config_text("http://127.0.0.1:9"))
    path = f"{Path(claude_bin).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    r = run_eval("run", "--scenarios", str(folder), "--modes", "claude-code", "--results", str(results),
                 "--config", str(tmp_path / "config.toml"), cwd=tmp_path,
                 env=env_with(**real_claude_env, PATH=path, MILK_HOME=tmp_path / "home"))  # fmt: skip
    assert r.returncode == 0, r.stderr
    got = turns(results)
    t0, t1 = got["look-around", "claude-code", 0], got["look-around", "claude-code", 1]
    assert (t0.agent, t0.tool_calls, t0.text, t0.error) == ("claude-code", 1, "found none", "")
    assert (t0.prompt_tokens, t0.completion_tokens, t0.cached_tokens) == (70, 11, 10)
    assert t0.cost_usd > 0 and set(t0.roles) == {"claude-code"}
    assert (t1.text, t1.prompt_tokens, t1.cached_tokens, t1.tool_calls) == ("second", 50, 100, 0)
    # the second turn continued the conversation: the first turn's answer was sent again
    last = json.dumps(fake_anthropic.message_requests[-1].body)
    assert "found none" in last and "and now say second" in last


def test_without_claude_the_mode_is_skipped_with_one_line(tmp_path: Path) -> None:
    folder = write(tmp_path / "sc", "t.yaml", "name: n\nprompt: hi\n")
    (tmp_path / "config.toml").write_text(config_text("http://127.0.0.1:9"))
    results = tmp_path / "res"
    r = run_eval("run", "--scenarios", str(folder), "--modes", "claude-code", "--results", str(results),
                 "--config", str(tmp_path / "config.toml"), cwd=tmp_path,
                 env=env_with(PATH=str(tmp_path / "nothing"), MILK_HOME=tmp_path / "home"))  # fmt: skip
    assert r.returncode == 0, r.stderr
    line = "claude-code: skipped (the claude command is not installed)"
    assert r.stderr.count(line) == 1
    info = rec.read_run(results)
    assert info.notes == [line] and info.modes == []
    assert turns(results) == {}
