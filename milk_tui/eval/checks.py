"""A turn's ``expected`` checks: the scenario's ``expected`` after its last turn, and
``cache_expect`` on every turn after the first."""

from __future__ import annotations

from pathlib import Path

from milk_tui.eval.records import Check, TurnRecord
from milk_tui.eval.scenarios import Scenario


def evaluate(
    rec: TurnRecord, scenario: Scenario, folder: Path, changed_so_far: set[str]
) -> list[Check]:
    out: list[Check] = []
    last = rec.turn == len(scenario.turns) - 1
    if last:
        answer = rec.text.lower()
        for want in scenario.expected.contains:
            ok = want.lower() in answer
            out.append(Check("contains", want, ok, "" if ok else "not in the answer"))
        for f in scenario.expected.files_changed:
            out.append(_file_check(folder, f.path, f.contains, changed_so_far))
    ce = scenario.cache_expect
    if rec.turn >= 1:
        if ce.min_cache_hit_rate_after_turn1 is not None:
            rate = hit_rate(rec)
            ok = rate is not None and rate >= ce.min_cache_hit_rate_after_turn1
            seen = "no prompt tokens" if rate is None else f"hit rate {rate:.2f}"
            out.append(Check("cache_expect",
                             f"hit rate >= {ce.min_cache_hit_rate_after_turn1:g}",
                             ok, "" if ok else seen))  # fmt: skip
        if ce.no_cache_recreate_after_turn1:
            ok = rec.cache_creation == 0
            out.append(Check("cache_expect", "no cache written", ok,
                             "" if ok else f"{rec.cache_creation} tokens written"))  # fmt: skip
    return out


def hit_rate(rec: TurnRecord) -> float | None:
    """cached ÷ every prompt token (fresh + cached + written to the cache)."""
    whole = rec.prompt_tokens + rec.cached_tokens + rec.cache_creation
    return rec.cached_tokens / whole if whole else None


def _file_check(folder: Path, path: str, contains: str, changed: set[str]) -> Check:
    want = f"{path} contains {contains!r}" if contains else path
    if path not in changed:
        return Check("files_changed", want, False, "not changed")
    if contains:
        try:
            text = (folder / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return Check("files_changed", want, False, "deleted")
        if contains not in text:
            return Check("files_changed", want, False, f"changed, without {contains!r}")
    return Check("files_changed", want, True)
