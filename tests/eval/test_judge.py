"""``milk-tui eval judge`` with a judge agent on a fake OpenAI server: one question per turn
per criterion, scores normalised to 0–1, the raw number and the reason kept, and an answer
outside the form (or a judge that fails) a missing score, never 0."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from eval.rig import config_text, env_with, run_eval, scores, write
from milk_tui.eval import records as rec
from milk_tui.eval.judge import normalise, parse_answer
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply

RUBRIC = """
name: grade-me
description: answer the question about tabs
prompt: do you like tabs?
rubric:
  - {criterion: honest, description: is it honest, scoring: binary, weight: 2}
  - {criterion: clear, description: is it clear, scoring: scale_1_5}
"""


def _run_folder(tmp_path: Path, scenarios: Path) -> Path:
    results = tmp_path / "res"
    results.mkdir()
    rec.write_run(results, rec.RunInfo(started=time.time(), modes=["primary", "escalation"],
                                       scenarios_dir=str(scenarios)))  # fmt: skip
    for mode in ("primary", "escalation"):
        rec.append(results / rec.TURNS_FILE, rec.TurnRecord(
            "grade-me", mode, 0, "do you like tabs?", text=f"TABS-ANSWER-{mode}"))  # fmt: skip
    rec.append(results / rec.TURNS_FILE,
               rec.TurnRecord("grade-me", "routed", 0, "do you like tabs?", error="exit 1"))  # fmt: skip
    return results


def _judge(tmp_path: Path, results: Path, llama_url: str, judge_url: str) -> Any:
    """``eval judge`` of ``results`` with the agent ``judge`` at ``judge_url``."""
    (tmp_path / "config.toml").write_text(config_text(llama_url, judge_url=judge_url))
    return run_eval("judge", "--results", str(results), "--judge-agent", "judge",
                    "--config", str(tmp_path / "config.toml"), cwd=tmp_path,
                    env=env_with(MILK_HOME=tmp_path / "home"))  # fmt: skip


def test_scores_are_normalised_and_garbage_is_missing_not_zero(tmp_path: Path) -> None:
    scenarios = write(tmp_path / "sc", "s.yaml", RUBRIC)
    results = _run_folder(tmp_path, scenarios)
    with FakeOpenAIServer() as judge, FakeOpenAIServer() as llama:
        judge.enqueue(
            FakeReply(text=["SCORE: 1\nREASON: it says what it thinks"]),
            FakeReply(text=["SCORE: 4\nREASON: mostly clear"]),
            FakeReply(text=["I think this answer is rather good overall."]),
            FakeReply(text=["SCORE: 9\nREASON: off the scale"]),
        )
        r = _judge(tmp_path, results, llama.url, judge.url)
        asked = [q.json for q in judge.chat_requests]
    assert r.returncode == 0, r.stderr
    assert len(asked) == 4  # 2 judged turns × 2 criteria; the failed turn is not sent
    first = asked[0]["messages"][-1]["content"]
    assert (
        "TABS-ANSWER-primary" in first and "is it honest" in first and "0 (no) or 1 (yes)" in first
    )
    assert asked[0].get("temperature") == 0 and not asked[0].get("tools")
    # the answer's form is fixed by a grammar a llama.cpp judge honours
    assert asked[0]["stream"] is False and '"SCORE: " [01]' in asked[0]["grammar"]
    assert '"SCORE: " [1-5]' in asked[1]["grammar"]
    got = {(s.mode, s.criterion): s for s in scores(results)}
    p_honest, p_clear = got["primary", "honest"], got["primary", "clear"]
    assert (p_honest.raw, p_honest.score, p_honest.reason, p_honest.judge) == (
        1,
        1.0,
        "it says what it thinks",
        "judge",
    )
    assert (p_clear.raw, p_clear.score, p_clear.weight) == (4, 0.75, 1)
    garbage, off = got["escalation", "honest"], got["escalation", "clear"]
    assert garbage.score is None and garbage.raw is None and "no SCORE line" in garbage.error
    assert off.score is None and "outside 1 to 5" in off.error
    failed = got["routed", "honest"]
    assert failed.score is None and failed.error == "not judged: the turn failed"
    assert "6 scores (4 missing)" in r.stderr


def test_a_judge_server_that_refuses_grammars_is_asked_in_words(tmp_path: Path) -> None:
    scenarios = write(tmp_path / "sc", "s.yaml", RUBRIC)
    results = _run_folder(tmp_path, scenarios)
    with FakeOpenAIServer() as judge, FakeOpenAIServer() as llama:
        judge.enqueue(
            FakeReply(status=400, error_body='{"error":{"message":"unknown field grammar"}}'),
            FakeReply(text=["SCORE: 0\nREASON: evasive"]),
        )
        r = _judge(tmp_path, results, llama.url, judge.url)
        asked = [q.json for q in judge.chat_requests]
    assert r.returncode == 0, r.stderr
    assert "grammar" in asked[0] and "grammar" not in asked[1] and asked[1]["stream"] is True
    honest = {(s.mode, s.criterion): s for s in scores(results)}["primary", "honest"]
    assert (honest.raw, honest.reason) == (0, "evasive")


def test_a_judge_that_cannot_be_reached_gives_missing_scores(tmp_path: Path) -> None:
    scenarios = write(tmp_path / "sc", "s.yaml", RUBRIC)
    results = _run_folder(tmp_path, scenarios)
    with FakeOpenAIServer() as llama:
        r = _judge(tmp_path, results, llama.url, "http://127.0.0.1:9")
    assert r.returncode == 0, r.stderr
    judged = [s for s in scores(results) if s.mode != "routed"]
    assert len(judged) == 4 and all(
        s.score is None and s.error.startswith("judge failed: judge") for s in judged
    )


def test_an_unknown_judge_agent_is_one_line(tmp_path: Path) -> None:
    scenarios = write(tmp_path / "sc", "s.yaml", RUBRIC)
    results = _run_folder(tmp_path, scenarios)
    (tmp_path / "config.toml").write_text(config_text("http://127.0.0.1:9"))
    r = run_eval("judge", "--results", str(results), "--judge-agent", "nobody",
                 "--config", str(tmp_path / "config.toml"), cwd=tmp_path,
                 env=env_with(MILK_HOME=tmp_path / "home"))  # fmt: skip
    assert r.returncode == 1
    assert (
        r.stderr.strip()
        .splitlines()[-1]
        .startswith("milk-tui eval: --judge-agent: no agent named 'nobody'")
    )
    assert not (results / rec.SCORES_FILE).exists()


@pytest.mark.parametrize(
    ("text", "scoring", "raw"),
    [("SCORE: 0\nREASON: no", "binary", 0.0), ("score = 5", "scale_1_5", 5.0), ("3", "scale_1_5", 3.0),
     ("**SCORE:** 2", "scale_1_5", 2.0), ("SCORE: 0.5", "binary", None), ("SCORE: 0", "scale_1_5", None),
     ("yes", "binary", None), ("", "binary", None)],
)  # fmt: skip
def test_the_answer_form(text: str, scoring: rec.Scoring, raw: float | None) -> None:
    got, _, error = parse_answer(text, scoring)
    assert got == raw and bool(error) == (raw is None)
    if raw is not None:
        assert 0.0 <= normalise(raw, scoring) <= 1.0
