"""``milk-tui eval`` as a user meets it: ``--list``, bad flags in one line, the default
results folder and ``judge`` finding the latest run, a failed or timed-out turn recorded
while the run goes on, and the progress line on a terminal."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from eval.rig import config_text, env_with, run_eval, scores, turns, write
from milk_tui.eval import records as rec
from milk_tui.eval.progress import Progress
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply

TWO = """
category: c
scenarios:
  - {name: a-first, prompt: hello one, route: primary, rubric: [{criterion: ok, scoring: binary}]}
  - name: b-second
    turns:
      - {prompt: one, route: primary}
      - {prompt: two, route: escalation}
"""


@pytest.fixture
def llama(tmp_path: Path) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["fine"])
        (tmp_path / "config.toml").write_text(config_text(srv.url, judge_url=srv.url))
        yield srv


def test_list_shows_turns_and_labels(tmp_path: Path) -> None:
    folder = write(tmp_path / "sc", "two.yaml", TWO)
    write(folder, "bad.yaml", "name: [oops\n")
    r = run_eval("--list", "--scenarios", str(folder), cwd=tmp_path)
    assert r.returncode == 0
    assert r.stdout.splitlines() == [
        "a-first   c              1 turn   route primary",
        "b-second  c              2 turns  route primary,escalation",
        "2 scenarios, 3 turns",
    ]
    assert r.stderr.splitlines() == [f"milk-tui eval: {folder / 'bad.yaml'}: not valid YAML at line 2: "
                                     "expected ',' or ']', but got '<stream end>'"]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "line"),
    [(["run", "--modes", "routed,cheap"], "milk-tui eval: --modes: unknown mode cheap (known: routed, primary, escalation, claude-code)"),
     (["run", "--jobs", "0"], "milk-tui eval: --jobs: expected 1 or more"),
     (["run", "--scenarios", "/nonexistent/x"], "milk-tui eval: no scenario to run"),
     ([], "milk-tui eval: say run, judge, report or --list (milk-tui eval --help)"),
     (["judge"], "milk-tui eval: no eval run yet under")],
)  # fmt: skip
def test_bad_input_is_one_line(args: list[str], line: str, tmp_path: Path) -> None:
    r = run_eval(*args, cwd=tmp_path, env=env_with(MILK_HOME=tmp_path / "home"))
    assert r.returncode in (1, 2)
    assert r.stderr.strip().splitlines()[-1].startswith(line), r.stderr
    assert "Traceback" not in r.stderr


def test_default_results_folder_and_judge_of_the_latest(
    llama: FakeOpenAIServer, tmp_path: Path
) -> None:
    folder = write(tmp_path / "sc", "two.yaml", TWO)
    env = env_with(MILK_HOME=tmp_path / "home", MILK_CONFIG=tmp_path / "config.toml")
    r = run_eval("run", "--scenarios", str(folder), "--modes", "primary", cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    (results,) = (tmp_path / "home" / "eval").iterdir()
    assert len(turns(results)) == 3 and rec.read_run(results).primary == "llama"
    out = r.stdout.splitlines()  # the run ends with the report: the premise table first
    assert "Premise" in out and any(line.startswith("  primary share") for line in out), out
    llama.enqueue(FakeReply(text=["SCORE: 1\nREASON: right"]))
    r = run_eval("judge", "--judge-agent", "judge", cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    (s,) = scores(results)  # only a-first has a rubric
    assert (s.scenario, s.score, s.reason) == ("a-first", 1.0, "right")


def test_a_failed_and_a_timed_out_turn_are_recorded_and_the_run_goes_on(
    llama: FakeOpenAIServer, tmp_path: Path
) -> None:
    never = threading.Event()
    llama.enqueue(FakeReply(status=500, error_body='{"error": {"message": "boom"}}'),
                  FakeReply(text=["slow "], hold=never))  # fmt: skip
    folder = write(tmp_path / "sc", "two.yaml", TWO)
    try:
        r = run_eval("run", "--scenarios", str(folder), "--modes", "primary", "--turn-timeout", "8",
                     "--results", str(tmp_path / "res"), "--config", str(tmp_path / "config.toml"),
                     cwd=tmp_path, env=env_with(MILK_HOME=tmp_path / "home"))  # fmt: skip
    finally:
        never.set()
    assert r.returncode == 0, r.stderr
    got = turns(tmp_path / "res")
    failed, slow, after = (got["a-first", "primary", 0], got["b-second", "primary", 0],
                           got["b-second", "primary", 1])  # fmt: skip
    assert "boom" in failed.error and failed.agent == "" and failed.slot == "primary"
    assert slow.error == "timed out after 8 s"
    assert after.error == "" and after.text == "fine"


def test_the_progress_line_on_a_terminal_is_redrawn_in_place() -> None:
    out = io.StringIO()
    p = Progress(out, 2, tty=True)
    p.start("a · routed · turn 1/1")
    p.finish("a · routed · turn 1/1", "ok")
    p.close()
    text = out.getvalue()
    assert "\n" not in text and text.count("\r\x1b[K") == 3
    assert "eval [····················] 0/2 a · routed · turn 1/1 (" in text
    assert text.endswith("eval [██████████··········] 1/2 \r\x1b[K")
    p = Progress(out := io.StringIO(), 2, tty=True)
    p.finish("b", "failed: exit 1")
    assert (
        out.getvalue()
        == "\r\x1b[Keval: b: failed: exit 1\n\r\x1b[Keval [██████████··········] 1/2 "
    )
    plain = io.StringIO()
    q = Progress(plain, 1, tty=False)
    q.start("a\x1b[31m")
    q.finish("a", "ok")
    assert plain.getvalue().splitlines() == ["eval: [1/1] a␛[31m …", "eval: [1/1] a: ok"]


def test_scenarios_before_the_word_are_kept(tmp_path: Path) -> None:
    folder = write(tmp_path / "sc", "two.yaml", TWO)
    (tmp_path / "config.toml").write_text(config_text("http://127.0.0.1:9"))
    r = run_eval("--scenarios", str(folder), "run", "--modes", "primary", "--results", str(tmp_path / "res"),
                 "--config", str(tmp_path / "config.toml"), cwd=tmp_path,
                 env=env_with(MILK_HOME=tmp_path / "home"))  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert sorted(k[0] for k in turns(tmp_path / "res")) == ["a-first", "b-second", "b-second"]
    r = run_eval(
        "--scenarios", str(folder), "judge", "--results", str(tmp_path / "none"), cwd=tmp_path
    )
    assert r.stderr.strip() == f"milk-tui eval: {tmp_path / 'none'}: no such folder"


def test_category_and_multi_turn_narrow_the_run_and_the_list(
    llama: FakeOpenAIServer, tmp_path: Path
) -> None:
    folder = write(tmp_path / "sc", "two.yaml", TWO)
    write(folder, "other.yaml", "name: c-third\ncategory: d\nprompt: three\n")
    r = run_eval("--list", "--scenarios", str(folder), "--category", "d", cwd=tmp_path)
    assert r.stdout.splitlines()[-1] == "1 scenarios, 1 turns", r.stdout
    r = run_eval("run", "--scenarios", str(folder), "--modes", "primary", "--multi-turn",
                 "--results", str(tmp_path / "res"), "--config", str(tmp_path / "config.toml"),
                 cwd=tmp_path, env=env_with(MILK_HOME=tmp_path / "home"))  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert sorted(k[0] for k in turns(tmp_path / "res")) == ["b-second", "b-second"]
    r = run_eval("--category", "c", "run", "--scenarios", str(folder), "--modes", "primary",
                 "--results", str(tmp_path / "res2"), "--config", str(tmp_path / "config.toml"),
                 cwd=tmp_path, env=env_with(MILK_HOME=tmp_path / "home"))  # fmt: skip
    assert sorted(k[0] for k in turns(tmp_path / "res2")) == ["a-first", "b-second", "b-second"]
    r = run_eval("run", "--scenarios", str(folder), "--category", "d", "--multi-turn",
                 cwd=tmp_path, env=env_with(MILK_HOME=tmp_path / "home"))  # fmt: skip
    assert r.returncode == 1
    assert r.stderr.strip().splitlines()[-1] == (
        "milk-tui eval: no scenario of category 'd' with more than one turn to run"
    )
