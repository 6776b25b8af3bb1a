"""The report's arithmetic: per-mode figures, the premise ratios and the routing figures,
each a pure function of the turn records and their rubric scores (docs/eval.md says what
each number means)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from milk_tui.eval.records import RubricScore, TurnRecord

SLOTS = ("primary", "escalation")


@dataclass
class Ratio:
    value: float | None
    why: str
    """What it was computed over, or why there is no value."""


@dataclass
class ModeFigures:
    mode: str
    turns: int = 0
    failed: int = 0
    checked: int = 0
    """Turns with at least one ``expected`` check."""
    passed: int = 0
    pass_rate: float | None = None
    judged: int = 0
    """Turns with at least one scored criterion."""
    quality: float | None = None
    cost_usd: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    seconds: float = 0.0
    cache_hit_after_turn1: float | None = None


@dataclass
class WrongRoute:
    scenario: str
    turn: int
    prompt: str
    label: str
    slot: str
    route_reason: str


@dataclass
class Routing:
    labelled: int = 0
    """Routed turns with a label that an agent answered."""
    agreement: float | None = None
    escalation_recall: float | None = None
    escalation_precision: float | None = None
    confusion: dict[str, dict[str, int]] = field(default_factory=dict)
    """label → slot that answered → turns."""
    wrong: list[WrongRoute] = field(default_factory=list)


def share(part: float, whole: float) -> float | None:
    return None if whole <= 0 else part / whole


def turn_quality(scores: Iterable[RubricScore]) -> float | None:
    """Σ weight·score / Σ weight over the criteria that have a score (0–1 each).  A missing
    score is left out — counting it as 0 would punish a judge's failure as a bad answer —
    and a turn with no score at all has no quality."""
    num = den = 0.0
    for s in scores:
        if s.score is None or s.weight <= 0:
            continue
        num += s.weight * s.score
        den += s.weight
    return share(num, den)


def passed(t: TurnRecord) -> bool | None:
    """None without checks; a failed turn never passes, whatever its checks saw."""
    if not t.expected:
        return None
    return not t.error and all(c.ok for c in t.expected)


def mean(values: Iterable[float | None]) -> float | None:
    seen = [v for v in values if v is not None]
    return sum(seen) / len(seen) if seen else None


def cache_hit_after_turn1(turns: Iterable[TurnRecord]) -> float | None:
    """Cached ÷ whole input over turns 2 onwards (index ≥ 1).  ``prompt_tokens`` counts the
    uncached input, as every ``usage`` event does (milk_tui/model/usage.py), so the whole
    input is prompt + cached."""
    later = [t for t in turns if t.turn >= 1]
    cached = sum(t.cached_tokens for t in later)
    return share(cached, cached + sum(t.prompt_tokens for t in later))


def mode_figures(
    mode: str, turns: Sequence[TurnRecord], quality: dict[tuple[str, str, int], float | None]
) -> ModeFigures:
    f = ModeFigures(mode, turns=len(turns))
    verdicts = [passed(t) for t in turns]
    f.failed = sum(1 for t in turns if t.error)
    f.checked = sum(1 for v in verdicts if v is not None)
    f.passed = sum(1 for v in verdicts if v)
    f.pass_rate = share(f.passed, f.checked)
    qs = [quality.get(t.key()) for t in turns]
    f.judged = sum(1 for q in qs if q is not None)
    f.quality = mean(qs)
    f.cost_usd = sum(t.cost_usd for t in turns)
    f.prompt_tokens = sum(t.prompt_tokens for t in turns)
    f.completion_tokens = sum(t.completion_tokens for t in turns)
    f.cached_tokens = sum(t.cached_tokens for t in turns)
    f.seconds = sum(t.seconds for t in turns)
    f.cache_hit_after_turn1 = cache_hit_after_turn1(turns)
    return f


def primary_share(routed: Sequence[TurnRecord]) -> Ratio:
    answered = [t for t in routed if t.slot and not t.error]
    if not routed:
        return Ratio(None, "routed mode not run")
    if not answered:
        return Ratio(None, "no routed turn was answered")
    n = sum(1 for t in answered if t.slot == "primary")
    return Ratio(n / len(answered), f"{n} of {len(answered)} answered routed turns")


def _pairs(
    routed: Sequence[TurnRecord], escalation: Sequence[TurnRecord]
) -> list[tuple[TurnRecord, TurnRecord]]:
    """(routed, escalation) records of the same scenario turn, both answered."""
    esc = {(t.scenario, t.turn): t for t in escalation if not t.error}
    return [
        (t, esc[(t.scenario, t.turn)])
        for t in routed
        if not t.error and (t.scenario, t.turn) in esc
    ]


def cost_ratio(routed: Sequence[TurnRecord], escalation: Sequence[TurnRecord]) -> Ratio:
    if not escalation:
        return Ratio(None, "escalation mode not run")
    if not routed:
        return Ratio(None, "routed mode not run")
    pairs = _pairs(routed, escalation)
    if not pairs:
        return Ratio(None, "no turn answered in both routed and escalation")
    esc = sum(e.cost_usd for _, e in pairs)
    if esc <= 0:
        return Ratio(None, f"escalation cost $0 over {len(pairs)} turns (not priced)")
    return Ratio(sum(r.cost_usd for r, _ in pairs) / esc, f"over {len(pairs)} turns")


def quality_ratio(
    routed: Sequence[TurnRecord],
    escalation: Sequence[TurnRecord],
    quality: dict[tuple[str, str, int], float | None],
) -> Ratio:
    if not escalation:
        return Ratio(None, "escalation mode not run")
    if not routed:
        return Ratio(None, "routed mode not run")
    pairs = [
        (qr, qe)
        for r, e in _pairs(routed, escalation)
        if (qr := quality.get(r.key())) is not None and (qe := quality.get(e.key())) is not None
    ]
    if not pairs:
        return Ratio(None, "no turn judged in both routed and escalation (eval judge)")
    esc = sum(qe for _, qe in pairs) / len(pairs)
    if esc <= 0:
        return Ratio(None, f"escalation quality 0 over {len(pairs)} turns")
    return Ratio(sum(qr for qr, _ in pairs) / len(pairs) / esc, f"over {len(pairs)} turns")


def routing(routed: Sequence[TurnRecord]) -> Routing:
    """Agreement with the labels, escalation recall and precision and the confusion table,
    over routed turns with a label that an agent answered (a failed turn has no slot)."""
    r = Routing()
    labelled = [t for t in routed if t.label and t.slot and not t.error]
    slots = list(SLOTS) + sorted({t.slot for t in labelled} - set(SLOTS))
    labels = list(SLOTS) + sorted({str(t.label) for t in labelled} - set(SLOTS))
    r.confusion = {label: dict.fromkeys(slots, 0) for label in labels}
    for t in labelled:
        r.confusion[t.label][t.slot] += 1
    r.labelled = len(labelled)
    r.agreement = share(sum(1 for t in labelled if t.slot == t.label), len(labelled))
    want = [t for t in labelled if t.label == "escalation"]
    went = [t for t in labelled if t.slot == "escalation"]
    r.escalation_recall = share(sum(1 for t in want if t.slot == "escalation"), len(want))
    r.escalation_precision = share(sum(1 for t in went if t.label == "escalation"), len(went))
    r.wrong = [
        WrongRoute(t.scenario, t.turn, t.prompt, t.label, t.slot, t.route_reason)
        for t in labelled
        if t.slot != t.label
    ]
    return r
