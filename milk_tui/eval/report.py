"""``eval report``: what a results folder says about the premise — per-mode figures, the
premise ratios, the routing against the labels — as one ``Report`` and its JSON object
(docs/interfaces.md, "Eval report"; docs/eval.md explains each number)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from milk_tui.eval import metrics
from milk_tui.eval.load import Results, read_results
from milk_tui.eval.metrics import ModeFigures, Ratio, Routing
from milk_tui.eval.records import BUILTIN_MODES, RubricScore, RunInfo, TurnRecord

Key = tuple[str, str, int]


@dataclass
class Premise:
    primary_share: Ratio
    cost_ratio: Ratio
    quality_ratio: Ratio


@dataclass
class TurnRow:
    record: TurnRecord
    scores: list[RubricScore]
    quality: float | None
    passed: bool | None


@dataclass
class Report:
    folder: Path
    run: RunInfo | None
    modes: list[ModeFigures]
    premise: Premise
    routing: Routing
    turns: list[TurnRow]
    problems: list[str] = field(default_factory=list)

    @property
    def failed(self) -> list[TurnRecord]:
        return [r.record for r in self.turns if r.record.error]

    def mode(self, name: str) -> ModeFigures | None:
        return next((m for m in self.modes if m.mode == name), None)


def build_report(folder: Path) -> Report:
    return report_of(read_results(folder))


def report_of(res: Results) -> Report:
    problems = list(res.problems)
    scores = _scores_by_turn(res, problems)
    quality = {k: metrics.turn_quality(v) for k, v in scores.items()}
    by_mode: dict[str, list[TurnRecord]] = {}
    for t in sorted(res.turns, key=lambda t: (t.scenario, t.turn)):
        by_mode.setdefault(t.mode, []).append(t)
    names = _mode_order(res.run, by_mode)
    routed, escalation = by_mode.get("routed", []), by_mode.get("escalation", [])
    rows = [
        TurnRow(t, scores.get(t.key(), []), quality.get(t.key()), metrics.passed(t))
        for name in names
        for t in by_mode.get(name, [])
    ]
    return Report(
        folder=res.folder,
        run=res.run,
        modes=[metrics.mode_figures(m, by_mode.get(m, []), quality) for m in names],
        premise=Premise(
            metrics.primary_share(routed),
            metrics.cost_ratio(routed, escalation),
            metrics.quality_ratio(routed, escalation, quality),
        ),
        routing=metrics.routing(routed),
        turns=rows,
        problems=problems,
    )


def _scores_by_turn(res: Results, problems: list[str]) -> dict[Key, list[RubricScore]]:
    """One score per criterion of a turn: a judge run again appends, and the later line is
    the one that counts."""
    known = {t.key() for t in res.turns}
    latest: dict[tuple[Key, str], RubricScore] = {}
    for s in res.scores:
        if s.key() not in known:
            problems.append(
                f"scores.jsonl: a score for {s.scenario} {s.mode} turn {s.turn}, "
                "which turns.jsonl does not hold; left out"
            )
            continue
        latest[(s.key(), s.criterion)] = s
    out: dict[Key, list[RubricScore]] = {}
    for (key, _), s in latest.items():
        out.setdefault(key, []).append(s)
    return out


def _mode_order(run: RunInfo | None, seen: dict[str, list[TurnRecord]]) -> list[str]:
    """The built-in modes first, then the adapters, in the order the run named them; a mode
    the run named that has no turn yet still gets its (empty) row."""
    named = [m for m in (run.modes if run else []) if isinstance(m, str)]
    order = [m for m in BUILTIN_MODES if m in named or m in seen]
    for m in [*named, *sorted(seen)]:
        if m not in order:
            order.append(m)
    return order


# ----- JSON --------------------------------------------------------------------------------


def report_json(report: Report) -> dict[str, Any]:
    """The ``eval report --json`` object (docs/interfaces.md, "Eval report")."""
    p = report.premise
    r = report.routing
    return {
        "results": str(report.folder),
        "run": dataclasses.asdict(report.run) if report.run else None,
        "modes": {
            m.mode: {k: v for k, v in dataclasses.asdict(m).items() if k != "mode"}
            for m in report.modes
        },
        "premise": {
            "primary_share": p.primary_share.value,
            "cost_ratio": p.cost_ratio.value,
            "quality_ratio": p.quality_ratio.value,
            "why": {
                "primary_share": p.primary_share.why,
                "cost_ratio": p.cost_ratio.why,
                "quality_ratio": p.quality_ratio.why,
            },
        },
        "routing": {
            "labelled": r.labelled,
            "agreement": r.agreement,
            "escalation_recall": r.escalation_recall,
            "escalation_precision": r.escalation_precision,
            "confusion": r.confusion,
            "wrong": [dataclasses.asdict(w) for w in r.wrong],
        },
        "turns": [_turn_json(row) for row in report.turns],
        "problems": report.problems,
    }


def _turn_json(row: TurnRow) -> dict[str, Any]:
    t = row.record
    return {
        "scenario": t.scenario,
        "mode": t.mode,
        "turn": t.turn,
        "prompt": t.prompt,
        "agent": t.agent,
        "slot": t.slot,
        "route_rule": t.route_rule,
        "route_reason": t.route_reason,
        "handed_off": t.handed_off,
        "downgraded": t.downgraded,
        "label": t.label,
        "prompt_tokens": t.prompt_tokens,
        "completion_tokens": t.completion_tokens,
        "cached_tokens": t.cached_tokens,
        "cost_usd": t.cost_usd,
        "roles": {k: dataclasses.asdict(v) for k, v in t.roles.items()},
        "seconds": t.seconds,
        "tool_calls": t.tool_calls,
        "files_changed": t.files_changed,
        "expected": [dataclasses.asdict(c) for c in t.expected],
        "passed": row.passed,
        "score": row.quality,
        "scores": [
            {
                "criterion": s.criterion,
                "weight": s.weight,
                "scoring": s.scoring,
                "raw": s.raw,
                "score": s.score,
                "reason": s.reason,
                "judge": s.judge,
                "error": s.error,
            }
            for s in row.scores
        ],
        "error": t.error,
    }
