"""What an eval run writes and its judge and report read: one record per turn run.

A results folder holds ``run.json`` (a ``RunInfo``), ``turns.jsonl`` (one ``TurnRecord`` a
line, appended as each turn ends, so a run stopped by Ctrl+C keeps every finished turn) and
``scores.jsonl`` (one ``RubricScore`` a line, written by ``eval judge``).  A line that does
not parse is reported by ``read_jsonl`` as one problem and skipped: a report is never lost
to one bad line.  The JSON shapes are documented in ``docs/interfaces.md`` ("Eval").
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

Mode = str
"""``routed`` (as configured), ``primary`` (always the primary), ``escalation`` (always the
escalation agent), or an adapter's name for another program (``claude-code``)."""

BUILTIN_MODES: tuple[str, ...] = ("routed", "primary", "escalation")

Label = Literal["primary", "escalation", ""]
"""Which agent *should* answer a turn (the scenario's ``route``); "" unlabelled."""

Scoring = Literal["binary", "scale_1_5"]

RUN_FILE = "run.json"
TURNS_FILE = "turns.jsonl"
SCORES_FILE = "scores.jsonl"


@dataclass
class Check:
    """One ``expected`` check of a turn, evaluated after it ran."""

    kind: str
    """``contains`` (the answer holds the text), ``files_changed`` (the file was written),
    ``cache_expect`` (cached prompt tokens after turn 1)."""
    expected: str
    ok: bool
    detail: str = ""
    """What was seen instead, when not ok."""


@dataclass
class RoleTokens:
    """Token and cost figures of one role (``primary``/``escalation``/``classifier``/…) in a
    turn, summed over its ``usage`` events."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float = 0.0
    cache_creation: int = 0
    """Prompt tokens written to the provider's cache (``usage.cache_creation``)."""


@dataclass
class TurnRecord:
    scenario: str
    mode: Mode
    turn: int
    """0-based index within the scenario."""
    prompt: str
    label: Label = ""
    agent: str = ""
    """The agent name that answered (``turn_completed.agent_name``); "" if the turn failed."""
    slot: str = ""
    """``primary`` or ``escalation``: the slot that answered."""
    route_rule: str = ""
    """``route_decided.rule`` (explicit, keyword, score, classifier, …)."""
    route_reason: str = ""
    """``route_decided.reason``, then the hand-off's reason when the primary handed off."""
    handed_off: bool = False
    """The primary escalated on its own (``turn_completed.self_escalated``)."""
    downgraded: bool = False
    """The escalation started fresh instead of resuming (``escalation_started.downgraded``)."""
    roles: dict[str, RoleTokens] = field(default_factory=dict)
    prompt_tokens: int = 0
    """The uncached input, summed over the roles, as ``usage`` events count it: the whole
    input is ``prompt_tokens + cached_tokens`` (the report's cache hit rate divides by it)."""
    completion_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float = 0.0
    seconds: float = 0.0
    tool_calls: int = 0
    files_changed: list[str] = field(default_factory=list)
    expected: list[Check] = field(default_factory=list)
    text: str = ""
    """The answer as recorded (tags removed)."""
    error: str = ""
    """One line when the turn failed (then the figures are what was seen before it failed)."""
    cache_creation: int = 0
    """Prompt tokens written to the cache, all roles (``cache_expect`` checks it)."""
    diff: str = ""
    """A unified diff of the text files the turn changed (cut at ``DIFF_MAX`` characters),
    for the judge: the folder is gone once the run ends."""

    def key(self) -> tuple[str, str, int]:
        return (self.scenario, self.mode, self.turn)


@dataclass
class RubricScore:
    scenario: str
    mode: Mode
    turn: int
    criterion: str
    weight: float
    scoring: Scoring
    raw: float | None = None
    """The judge's number: 0/1 for binary, 1–5 for scale_1_5; None when it gave none."""
    score: float | None = None
    """``raw`` normalised to 0–1 (binary as is, scale (raw-1)/4); None = missing, never 0."""
    reason: str = ""
    judge: str = ""
    """The judge agent's name."""
    error: str = ""

    def key(self) -> tuple[str, str, int]:
        return (self.scenario, self.mode, self.turn)


@dataclass
class RunInfo:
    started: float
    modes: list[str]
    scenarios_dir: str
    """"" for the built-in suite."""
    primary: str = ""
    escalation: str = ""
    """The agent names the run used."""
    finished: float = 0.0
    interrupted: bool = False
    milk_tui_version: str = ""
    notes: list[str] = field(default_factory=list)
    """One line each: a mode skipped (``claude-code`` not installed), a scenario file that
    did not load."""


_T = TypeVar("_T")


def to_json(record: object) -> str:
    return json.dumps(dataclasses.asdict(record), ensure_ascii=False)  # type: ignore[call-overload]  # asdict takes any dataclass instance; the TypeVar bound cannot say so


def from_dict(cls: type[_T], data: Any) -> _T:
    """A record from its JSON object: unknown keys are ignored, a missing or wrong-typed
    required key raises ``ValueError`` naming it."""
    if not isinstance(data, dict):
        raise ValueError(f"expected an object, got {type(data).__name__}")
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]  # cls is a dataclass type
        if f.name not in data:
            continue
        value = data[f.name]
        if cls is TurnRecord and f.name == "expected":
            value = [from_dict(Check, v) for v in value or []]
        elif cls is TurnRecord and f.name == "roles":
            value = {str(k): from_dict(RoleTokens, v) for k, v in (value or {}).items()}
        kwargs[f.name] = value
    try:
        return cls(**kwargs)
    except TypeError as e:
        raise ValueError(str(e)) from None


def append(path: Path, record: object) -> None:
    """One line, flushed and synced: a killed run keeps every line written before."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, (to_json(record) + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)


def read_jsonl(path: Path, cls: type[_T], problems: list[str]) -> Iterator[_T]:
    """Every record of a ``.jsonl`` file; each bad line adds one line to ``problems``."""
    if not path.exists():
        return
    with path.open(encoding="utf-8", errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield from_dict(cls, json.loads(line))
            except (ValueError, TypeError, AttributeError) as e:  # a list where an object belongs
                problems.append(f"{path.name} line {n}: {e}")


def write_run(folder: Path, info: RunInfo) -> None:
    tmp = folder / (RUN_FILE + ".tmp")
    tmp.write_text(to_json(info) + "\n", encoding="utf-8")
    os.replace(tmp, folder / RUN_FILE)


def read_run(folder: Path) -> RunInfo:
    """Raises ``ValueError`` with one line when the folder holds no readable run."""
    path = folder / RUN_FILE
    try:
        return from_dict(RunInfo, json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise ValueError(f"{folder}: no eval run here (no {RUN_FILE})") from None
    except (OSError, json.JSONDecodeError, ValueError) as e:
        raise ValueError(f"{path}: {e}") from None
