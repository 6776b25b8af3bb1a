"""A results folder read for the report: every record whose fields have the types the
report adds up, each other line one problem (the report is never lost to a bad line).

``records.from_dict`` checks that the keys exist; here the values are checked too, so that
a hand-edited or truncated line (a string where a count belongs, ``NaN`` for a cost) is
listed rather than crashing a sum or reaching the JSON output as invalid ``NaN``."""

from __future__ import annotations

import dataclasses
import math
import os
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from milk_tui.config.paths import data_dir
from milk_tui.eval.records import (
    SCORES_FILE,
    TURNS_FILE,
    Check,
    RoleTokens,
    RubricScore,
    RunInfo,
    TurnRecord,
    read_jsonl,
    read_run,
)

RESULTS_DIRNAME = "eval"
"""Under the data dir: ``eval run`` writes one timestamped folder per run there."""


@dataclass
class Results:
    folder: Path
    run: RunInfo | None
    turns: list[TurnRecord] = field(default_factory=list)
    scores: list[RubricScore] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def results_root() -> Path:
    return data_dir() / RESULTS_DIRNAME


def latest_results(root: Path | None = None) -> Path | None:
    """The newest run under ``root`` (by its ``run.json`` start time, then the folder's
    modification time for a run that has none yet), or None when there is none."""
    base = results_root() if root is None else root
    try:
        folders = [p for p in base.iterdir() if p.is_dir() and _looks_like_run(p)]
    except OSError:
        return None

    def started(p: Path) -> tuple[float, str]:
        try:
            when = read_run(p).started
        except ValueError:
            when = None
        if not isinstance(when, int | float) or isinstance(when, bool):
            when = p.stat().st_mtime  # no run.json yet, or one a hand broke
        return (float(when), p.name)

    return max(folders, key=started, default=None)


def _looks_like_run(p: Path) -> bool:
    return any((p / name).exists() for name in ("run.json", TURNS_FILE))


def resolve(results: str | None) -> Path:
    """The folder ``--results`` (or ``/eval DIR``) names; "" or ``latest``: the newest run.
    Raises ``ValueError`` with one line when there is none."""
    if results and results != "latest":
        folder = Path(os.path.expanduser(results))
        if not folder.is_dir():
            raise ValueError(f"{folder}: no such folder")
        return folder
    found = latest_results()
    if found is None:
        raise ValueError(
            f"no eval run yet under {results_root()} — make one with: milk-tui eval run"
        )
    return found


def read_results(folder: Path) -> Results:
    problems: list[str] = []
    try:
        run: RunInfo | None = read_run(folder)
    except ValueError as e:
        run = None
        problems.append(str(e))
    if run is not None and (bad := _bad_field(run)):
        problems.append(f"run.json: {bad}")
        run = None
    if not (folder / TURNS_FILE).exists():
        problems.append(f"{TURNS_FILE}: missing (no turn finished yet)")
    turns = _checked(read_jsonl(folder / TURNS_FILE, TurnRecord, problems), TURNS_FILE, problems)
    scores = [
        s
        for s in _checked(
            read_jsonl(folder / SCORES_FILE, RubricScore, problems), SCORES_FILE, problems
        )
        if _in_range(s, problems)
    ]
    return Results(folder, run, _last_per_key(turns, problems), scores, problems)


def _last_per_key(turns: list[TurnRecord], problems: list[str]) -> list[TurnRecord]:
    """A turn recorded twice (a run resumed over the same folder) counts once: the later
    line, as the file's order says."""
    kept: dict[tuple[str, str, int], TurnRecord] = {}
    for t in turns:
        if t.key() in kept:
            problems.append(
                f"{TURNS_FILE}: {t.scenario} {t.mode} turn {t.turn} twice; the later kept"
            )
        kept[t.key()] = t
    return list(kept.values())


def _in_range(s: RubricScore, problems: list[str]) -> bool:
    if s.score is not None and s.score > 1:
        problems.append(
            f"{SCORES_FILE}: {s.scenario} {s.mode} turn {s.turn} {s.criterion!r}: "
            f"score {s.score} is not normalised to 0–1; left out"
        )
        return False
    return True


_T = typing.TypeVar("_T")


def _checked(records: typing.Iterable[_T], name: str, problems: list[str]) -> list[_T]:
    out: list[_T] = []
    for n, r in enumerate(records, 1):
        bad = _bad_field(r)
        if bad:
            problems.append(f"{name} record {n}: {bad}")
        else:
            out.append(r)
    return out


_HINTS: dict[type, dict[str, Any]] = {
    cls: typing.get_type_hints(cls) for cls in (TurnRecord, RubricScore, Check, RoleTokens, RunInfo)
}


def _bad_field(record: object) -> str:
    """ "" when every field has its declared type, else the first wrong one named."""
    for f in dataclasses.fields(record):  # type: ignore[arg-type]  # a record dataclass
        value = getattr(record, f.name)
        if not _fits(value, _HINTS[type(record)][f.name]):
            return f"{f.name}: {type(value).__name__} {str(value)[:40]!r} is not a valid value"
    return ""


def _fits(value: Any, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is Literal:
        return value in args
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, a) for a in args)
    if origin is list:
        return isinstance(value, list) and all(_fits(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict) and all(
            _fits(k, args[0]) and _fits(v, args[1]) for k, v in value.items()
        )
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if hint is float:
        return (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and math.isfinite(value)
            and value >= 0
        )
    if hint is str:
        return isinstance(value, str)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return isinstance(value, hint) and not _bad_field(value)
    return True
