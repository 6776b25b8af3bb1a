"""A small results folder whose every figure was worked out by hand (the comments give the
arithmetic the tests check)."""

from __future__ import annotations

from pathlib import Path

from milk_tui.eval.records import (
    SCORES_FILE,
    TURNS_FILE,
    Check,
    RubricScore,
    RunInfo,
    TurnRecord,
    append,
    write_run,
)

OK = Check("contains", "pong", True)
BAD = Check("files_changed", "main.py", False, "not written")


def turn(scenario: str, mode: str, n: int, **kw: object) -> TurnRecord:
    kw.setdefault("prompt", f"{scenario} prompt {n}")
    return TurnRecord(scenario=scenario, mode=mode, turn=n, **kw)  # type: ignore[arg-type]  # test data by keyword


def score(scenario: str, mode: str, n: int, criterion: str, weight: float,
          value: float | None, scoring: str = "scale_1_5") -> RubricScore:  # fmt: skip
    raw = None if value is None else (value if scoring == "binary" else 1 + 4 * value)
    return RubricScore(scenario, mode, n, criterion, weight, scoring, raw=raw, score=value)  # type: ignore[arg-type]  # a literal from the test


ROUTED = [
    # a#1: label escalation, escalated; checks pass.
    turn("a", "routed", 0, label="escalation", slot="escalation", agent="claude",
         cost_usd=0.10, prompt_tokens=100, completion_tokens=10, seconds=2.0,
         expected=[OK], route_rule="keyword", route_reason="design"),
    # a#2: label primary, primary; one check fails. Turn 2: 150 cached of 200 in.
    turn("a", "routed", 1, label="primary", slot="primary", agent="small",
         prompt_tokens=50, cached_tokens=150, completion_tokens=5, seconds=1.0,
         expected=[OK, BAD]),
    # b#1: label escalation, answered by the primary: routed wrongly; no checks.
    turn("b", "routed", 0, label="escalation", slot="primary", agent="small",
         prompt_tokens=40, completion_tokens=4, seconds=0.5, route_rule="length",
         route_reason="short prompt"),
    # c#1: failed (its check saw ok, the turn still does not pass).
    turn("c", "routed", 0, label="primary", cost_usd=0.01, expected=[OK],
         error="primary: server closed the connection"),
]  # fmt: skip
ESCALATION = [
    turn("a", "escalation", 0, slot="escalation", cost_usd=0.20, prompt_tokens=100),
    turn("a", "escalation", 1, slot="escalation", cost_usd=0.10, prompt_tokens=20,
         cached_tokens=180),
    turn("b", "escalation", 0, slot="escalation", cost_usd=0.10),
    turn("c", "escalation", 0, slot="escalation", cost_usd=0.10),
]  # fmt: skip
PRIMARY = [turn("a", "primary", 0, slot="primary", expected=[OK])]
SCORES = [
    # routed a#1: (3·1.0 + 1·0.0) / 4 = 0.75; "tests" has no score and must not count as 0
    # (it would make 3/6 = 0.5).
    score("a", "routed", 0, "correct", 3, 1.0, "binary"),
    score("a", "routed", 0, "style", 1, 0.0),
    score("a", "routed", 0, "tests", 2, None),
    # routed a#2: judged twice; the later line (0.5) counts.
    score("a", "routed", 1, "correct", 1, 0.0),
    score("a", "routed", 1, "correct", 1, 0.5),
    # escalation a#1: 1.0; a#2: 0.5.
    score("a", "escalation", 0, "correct", 3, 1.0, "binary"),
    score("a", "escalation", 0, "style", 1, 1.0),
    score("a", "escalation", 1, "correct", 1, 0.5),
]
# routed: quality (0.75 + 0.5) / 2 = 0.625 (b, c unjudged); pass 1 of 3 checked;
# cost 0.11; cache after turn 1 = 150 / (50 + 150) = 0.75.
# premise: primary share 2 of 3 answered; cost over a0, a1, b0 (c failed in routed):
# 0.10 / 0.40 = 0.25; quality over a0, a1: 0.625 / 0.75.
# routing over a0, a1, b0: agreement 2/3, recall 1/2, precision 1/1.


def write_known(folder: Path, *, modes: tuple[str, ...] = ("routed", "primary", "escalation"),
                started: float = 1_767_225_600.0) -> Path:  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    write_run(folder, RunInfo(started=started, modes=list(modes), scenarios_dir=""))
    for t in [*ROUTED, *PRIMARY, *ESCALATION]:
        if t.mode in modes:
            append(folder / TURNS_FILE, t)
    for s in SCORES:
        if s.mode in modes:
            append(folder / SCORES_FILE, s)
    return folder
