"""``milk-tui eval judge``: one question per turn per rubric criterion to a configured agent
(default: the escalation agent), answered in a constrained form a small model can give.

The judge is asked for ``SCORE: <n>`` and ``REASON: <one line>``; a binary criterion takes
0 or 1, a ``scale_1_5`` one 1 to 5.  The score is normalised to 0–1 (binary as is, scale
``(raw-1)/4``) so criteria of both kinds can be weighed together; the raw number is kept.
A judge that fails or answers outside the form gives a missing score (None) with its
error, never a 0.  ``scores.jsonl`` is rewritten whole by each judging.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable
from pathlib import Path

from milk_tui.eval import records as rec
from milk_tui.eval.scenarios import Criterion, Scenario
from milk_tui.facade.ask import AskError, ask_agent, configured_agent

ANSWER_MAX = 12_000
"""The answer as shown to the judge is cut here (a runaway answer is not re-sent whole)."""

_SCORE = re.compile(r"SCORE\s*[:=]\s*\**\s*([0-9]+(?:\.[0-9]+)?)", re.IGNORECASE)
_REASON = re.compile(r"REASON\s*[:=]\s*(.+)", re.IGNORECASE)
_REASON_RULE = "reason ::= [^\\n]+"


def answer_grammar(scoring: rec.Scoring) -> str:
    """The judge's answer form as a llama.cpp GBNF: a small judge model otherwise writes
    prose with no score in it (that score would be missing).  Agents that cannot take a
    grammar get the same request in words (``judge_prompt``)."""
    digit = "[01]" if scoring == "binary" else "[1-5]"
    return f'root ::= "SCORE: " {digit} "\\nREASON: " reason\n{_REASON_RULE}\n'


def judge_prompt(scenario: Scenario, turn: rec.TurnRecord, c: Criterion) -> str:
    scale = (
        "0 (no) or 1 (yes)"
        if c.scoring == "binary"
        else "an integer from 1 (poor) to 5 (excellent)"
    )
    answer = turn.text if len(turn.text) <= ANSWER_MAX else turn.text[:ANSWER_MAX] + "\n… (cut)"
    changes = turn.diff or ("(none)" if not turn.files_changed else ", ".join(turn.files_changed))
    return (
        "You are grading one answer of an AI coding assistant against one criterion.\n\n"
        f"## Task\n{scenario.description or '(no description)'}\n\n"
        f"## Prompt\n{turn.prompt}\n\n"
        f"## Answer\n{answer or '(empty)'}\n\n"
        f"## Files changed by the assistant\n{changes}\n\n"
        f"## Criterion: {c.criterion}\n{c.description}\n\n"
        f"Reply with exactly two lines and nothing else:\nSCORE: {scale}\n"
        "REASON: one short sentence\n"
    )


def parse_answer(text: str, scoring: rec.Scoring) -> tuple[float | None, str, str]:
    """(raw score or None, reason, error) from the judge's answer."""
    m = _SCORE.search(text)
    if m is None:
        stripped = text.strip()
        bare = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)\s*", stripped)
        if bare is None:
            return None, "", f"no SCORE line in the judge's answer: {_one_line(text)[:120]!r}"
        m = bare
    raw = float(m.group(1))
    allowed = raw in (0.0, 1.0) if scoring == "binary" else 1.0 <= raw <= 5.0
    if not allowed:
        want = "0 or 1" if scoring == "binary" else "1 to 5"
        return None, "", f"score {raw:g} is outside {want}"
    reason = _REASON.search(text)
    return raw, _one_line(reason.group(1) if reason else ""), ""


def normalise(raw: float, scoring: rec.Scoring) -> float:
    return raw if scoring == "binary" else (raw - 1.0) / 4.0


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300]


def judge_results(
    folder: Path,
    scenarios: list[Scenario],
    *,
    config_path: str | None,
    judge_agent: str = "",
    on_score: Callable[[rec.RubricScore], None] | None = None,
) -> tuple[list[rec.RubricScore], list[str]]:
    """Score every turn of the run in ``folder``; writes ``scores.jsonl``.  Returns the
    scores and one problem line each (a bad record line, a turn whose scenario is gone).
    ``AskError`` when the judge agent is not configured."""
    config, entry = configured_agent(config_path, judge_agent)
    problems: list[str] = []
    turns = list(rec.read_jsonl(folder / rec.TURNS_FILE, rec.TurnRecord, problems))
    by_name = {s.name: s for s in scenarios}
    scores: list[rec.RubricScore] = []
    tmp = folder / (rec.SCORES_FILE + ".tmp")
    tmp.unlink(missing_ok=True)

    async def go() -> None:
        for t in turns:
            scenario = by_name.get(t.scenario)
            if scenario is None or t.turn >= len(scenario.turns):
                problems.append(
                    f"{t.scenario} turn {t.turn + 1}: not in the scenarios any more; not judged"
                )
                continue
            for c in scenario.turns[t.turn].rubric:
                s = rec.RubricScore(
                    t.scenario, t.mode, t.turn, c.criterion, c.weight, c.scoring, judge=entry.name
                )
                if t.error:
                    s.error = "not judged: the turn failed"
                else:
                    try:
                        answer = await ask_agent(
                            config,
                            entry,
                            judge_prompt(scenario, t, c),
                            grammar=answer_grammar(c.scoring),
                        )
                    except AskError as e:
                        s.error = f"judge failed: {e}"
                    else:
                        s.raw, s.reason, s.error = parse_answer(answer, c.scoring)
                        s.score = None if s.raw is None else normalise(s.raw, c.scoring)
                rec.append(tmp, s)
                scores.append(s)
                if on_score is not None:
                    on_score(s)

    asyncio.run(go())
    if tmp.exists():
        os.replace(tmp, folder / rec.SCORES_FILE)
    else:
        (folder / rec.SCORES_FILE).write_text("", encoding="utf-8")
    return scores, problems
