"""Short is not easy: each difficulty signal, at any length, beats the short-prompt rule and
shows in the route reason.  Prompts here are NOT the suite's (held out from it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from milk_tui.config.settings import MilkConfig
from milk_tui.engine.router import RouteFlags, Router
from milk_tui.engine.router_signals import difficulty_signals
from milk_tui.model.session import Session


def router(tmp_path: Path, **rules: object) -> Router:
    return Router(MilkConfig(rules=rules), str(tmp_path))


async def route(r: Router, prompt: str, need: str = ""):
    s = Session(id="s", cwd=str(r.cwd))
    s.current_need = need
    return await r.decide(prompt, s, RouteFlags())


@pytest.mark.parametrize(
    "prompt,kind,evidence",
    [
        ("Design the auth flow.", "design", "Design"),
        ("What architecture fits here?", "design", "architecture"),
        ("Should we cache this?", "decision", "Should we"),
        ("Refactor it.", "refactor", "Refactor"),
        ("Extract parsing into a module.", "refactor", "Extract parsing into"),
        ("Debug the login.", "debug", "Debug"),
        ("The server hangs.", "debug", "hangs"),
        ("Why is it slow?", "why", "Why"),
        ("perché non va?", "why", "perché"),
        ("test_io.py fails.", "failing tests", "test_io.py fails"),
        ("The tests are red.", "failing tests", "tests are red"),
        ("Edit a.py, b.py and c.py.", "many files", "a.py, b.py, c.py"),
        ("x " * 2100, "large context", "~1050 tokens"),
    ],
)
async def test_each_strong_signal_escalates_a_short_prompt(tmp_path, prompt, kind, evidence):
    sig = [s for s in difficulty_signals(prompt) if s.kind == kind]
    assert sig and sig[0].evidence == evidence
    d = await route(router(tmp_path), prompt)
    assert (d.target, d.rule) == ("escalation", "difficulty"), d.reason
    assert f"{kind} '{evidence}'" in d.reason  # every signal is in the reason


@pytest.mark.parametrize(
    "prompt",
    [
        "Show the trace.",  # "race" inside "trace"
        "Whyever not.",  # "why" only as a whole word
        "Redesigned logo colours: list them.",  # "design" is a prefix match, not infix
        "Print the latest testimonial.",  # "test" alone is not a failing test
        "Open notes.md.",  # one file: context, not difficulty
        "What is 2+2?",
        "and then?",  # a follow-up, not a second step
    ],
)
async def test_no_signal_from_parts_of_words(tmp_path, prompt):
    d = await route(router(tmp_path), prompt)
    assert (d.target, d.rule) == ("primary", "short_prompt"), d.reason


async def test_a_weak_signal_keeps_a_short_prompt_off_the_short_rule(tmp_path):
    d = await route(router(tmp_path), "The output is wrong.")
    # below the threshold alone: the score decides (no classifier here), and says why
    assert d.rule == "default" and "difficulty bug report 'wrong' +2" in d.reason
    d = await route(router(tmp_path), "It crashes on start; the output is wrong.")
    assert d.rule == "default"  # one kind counts once (first hit), still weak


async def test_multi_step_wording(tmp_path):
    (sig,) = [s for s in difficulty_signals("Add a flag and then update the docs") if s.weight > 1]
    assert (sig.kind, sig.evidence) == ("multi-step", "and then update")
    steps = "Do this:\n1. add a flag\n2. use it\n3. test it"
    assert [s.kind for s in difficulty_signals(steps)] == ["multi-step"]


async def test_signals_add_up_to_the_threshold(tmp_path):
    d = await route(router(tmp_path), "Two files disagree: a.py and b.py give wrong sums.")
    assert (d.target, d.rule) == ("escalation", "difficulty")
    assert "difficulty 4 >= 3" in d.reason


async def test_the_need_counts_for_a_bare_continuation_only(tmp_path):
    r = router(tmp_path)
    need = "redesign the plugin architecture"
    d = await route(r, "go on", need)
    assert (d.target, d.rule) == ("escalation", "difficulty") and "need '" in d.reason
    d = await route(r, "rename x to y", need)
    assert (d.target, d.rule) == ("primary", "short_prompt")


async def test_threshold_config_and_off_switch(tmp_path):
    d = await route(router(tmp_path, difficulty_threshold=0), "Why does it deadlock?")
    assert d.rule == "short_prompt"  # the old behaviour, on request
    d = await route(router(tmp_path, difficulty_threshold=7), "Why does it deadlock?")
    # why 3 + debug 3 = 6 < 7: not conclusive alone, but the signals still keep it off the
    # short-prompt rule and weigh in the score
    assert d.rule == "score" and "difficulty debug 'deadlock' +3" in d.reason
