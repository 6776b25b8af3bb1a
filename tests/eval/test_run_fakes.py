"""``milk-tui eval run`` end to end as a subprocess: the primary a fake OpenAI server, the
escalation agent the REAL Claude CLI against the fake Anthropic server.  Each figure of each
turn record is checked against what the fakes were scripted to send."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from eval.rig import checks, config_text, env_with, run_eval, turns, write
from milk_tui.eval import records as rec
from milk_tui.testing.fake_anthropic import FakeAnthropic, Reply
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall
from milk_tui.testing.fake_openai_reply import usage

pytestmark = pytest.mark.real_peer

SCENARIOS = """
category: test
scenarios:
  - name: hand-off
    description: the primary answers, then hands the second turn off
    cache_expect:
      min_cache_hit_rate_after_turn1: 0.5
    turns:
      - prompt: hello there
        route: primary
        rubric: [{criterion: polite, scoring: binary}]
      - prompt: what next
        route: escalation
  - name: write-note
    description: the agent writes note.txt
    route: primary
    setup:
      files:
        - {path: keep.txt, content: "keep me\\n"}
    prompt: hi, write note.txt
    expected:
      contains: [written]
      files_changed:
        - {path: note.txt, contains: hello}
        - keep.txt
"""


def call(name: str, args: dict[str, Any], cid: str) -> FakeToolCall:
    return FakeToolCall(name, json.dumps(args), id=cid)


@pytest.fixture
def fakes(
    tmp_path: Path, claude_bin: str, real_claude_env: dict[str, str], fake_anthropic: FakeAnthropic
):  # noqa: ANN201
    with FakeOpenAIServer() as llama:
        llama.default_reply = FakeReply(text=["(unscripted)"])
        config = tmp_path / "config.toml"
        config.write_text(config_text(llama.url, claude_bin))
        env = env_with(**real_claude_env, MILK_HOME=tmp_path / "home")
        yield llama, fake_anthropic, config, env


def test_each_turn_record_holds_what_the_fakes_sent(fakes: Any, tmp_path: Path) -> None:
    llama, anthropic, config, env = fakes
    llama.enqueue(
        # hand-off · routed: turn 1 the primary answers; turn 2 it hands off
        FakeReply(text=["hi from llama"], usage=usage(100, 10, cached=60)),
        FakeReply(
            tool_calls=[call("escalate", {"reason": "needs the big one"}, "e1")], usage=usage(50, 5)
        ),  # fmt: skip
        # write-note · routed: a tool call that writes the file, then the answer
        FakeReply(
            tool_calls=[call("write_file", {"path": "note.txt", "content": "hello\n"}, "w1")],
            usage=usage(80, 12),
        ),  # fmt: skip
        FakeReply(text=["written."], usage=usage(90, 3)),
    )
    anthropic.push(
        Reply.text(
            "escalated answer", input_tokens=200, output_tokens=30, cache_read=300
        ),  # hand-off routed t2
        Reply.text("e one", input_tokens=11, output_tokens=7),  # hand-off · escalation
        Reply.text("e two", input_tokens=12, output_tokens=8, cache_read=4),
        Reply.text("I will not write anything", input_tokens=13, output_tokens=9),  # write-note
    )
    folder = write(tmp_path / "scenarios", "test.yaml", SCENARIOS)
    results = tmp_path / "results"
    r = run_eval("run", "--scenarios", str(folder), "--modes", "routed,escalation",
                 "--results", str(results), "--config", str(config), cwd=tmp_path, env=env)  # fmt: skip
    assert r.returncode == 0, r.stderr
    got = turns(results)
    assert sorted(got) == sorted([("hand-off", "routed", 0), ("hand-off", "routed", 1),
                                  ("hand-off", "escalation", 0), ("hand-off", "escalation", 1),
                                  ("write-note", "routed", 0), ("write-note", "escalation", 0)])  # fmt: skip
    info = rec.read_run(results)
    assert (info.primary, info.escalation, info.interrupted) == ("llama", "claude", False)
    assert info.modes == ["routed", "escalation"] and info.finished >= info.started

    t = got["hand-off", "routed", 0]
    assert (t.agent, t.slot, t.label, t.route_rule, t.handed_off) == (
        "llama",
        "primary",
        "primary",
        "short_prompt",
        False,
    )
    assert (t.prompt_tokens, t.cached_tokens, t.completion_tokens) == (40, 60, 10)
    assert t.text == "hi from llama" and t.error == "" and t.files_changed == []
    assert checks(t) == []  # cache_expect only after turn 1

    t = got["hand-off", "routed", 1]
    assert (t.agent, t.slot, t.handed_off, t.label) == ("claude", "escalation", True, "escalation")
    assert "needs the big one" in t.route_reason
    assert (t.roles["primary"].prompt_tokens, t.roles["primary"].completion_tokens) == (50, 5)
    esc = t.roles["escalation"]
    assert (esc.prompt_tokens, esc.completion_tokens, esc.cached_tokens) == (200, 30, 300)
    assert esc.cost_usd > 0 and t.cost_usd == pytest.approx(
        esc.cost_usd + t.roles["primary"].cost_usd
    )
    assert t.text == "escalated answer"
    assert checks(t) == [("cache_expect", "hit rate >= 0.5", True)]  # 300 / (50+200+300)

    e0, e1 = got["hand-off", "escalation", 0], got["hand-off", "escalation", 1]
    assert (e0.agent, e0.slot, e0.route_rule, e0.handed_off) == (
        "claude",
        "escalation",
        "explicit",
        False,
    )
    assert (e0.prompt_tokens, e0.completion_tokens) == (11, 7) and set(e0.roles) == {"escalation"}
    assert (e1.prompt_tokens, e1.completion_tokens, e1.cached_tokens) == (12, 8, 4)
    assert checks(e1) == [("cache_expect", "hit rate >= 0.5", False)]
    assert e1.expected[0].detail == "hit rate 0.25"  # 4 / (12 + 4)

    w = got["write-note", "routed", 0]
    assert (w.agent, w.slot, w.tool_calls, w.files_changed) == ("llama", "primary", 1, ["note.txt"])
    assert (w.prompt_tokens, w.completion_tokens) == (170, 15)
    assert "+hello" in w.diff and "b/note.txt" in w.diff
    assert checks(w) == [("contains", "written", True),
                         ("files_changed", "note.txt contains 'hello'", True),
                         ("files_changed", "keep.txt", False)]  # fmt: skip
    w = got["write-note", "escalation", 0]
    assert (w.agent, w.files_changed, w.tool_calls) == ("claude", [], 0)
    assert checks(w) == [("contains", "written", False),
                         ("files_changed", "note.txt contains 'hello'", False),
                         ("files_changed", "keep.txt", False)]  # fmt: skip
    assert "eval: [10/6]" not in r.stderr and "write-note · escalation · turn 1/1" in r.stderr
