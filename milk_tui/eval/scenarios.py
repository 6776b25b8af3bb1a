"""Scenario files: what an eval run asks, in the YAML format of Go milk's eval (loads unchanged).

A folder holds ``*.yaml``/``*.yml`` files; names starting with ``_`` are not scenarios, and
``_base.yaml`` gives ``default_scoring`` and ``default_weight`` to every criterion lacking
them.  A file is one scenario, or a ``category:`` and a ``scenarios:`` list that inherits it.
A scenario is ``prompt`` (one turn with the top-level ``rubric``) or ``turns`` (each with its
own ``prompt`` and ``rubric``).  Our own key ``route: primary|escalation`` (on a scenario, for
its single prompt, or on a turn) labels which agent *should* answer.  A file that does not
load is one line naming the file and the field; the other files still load.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any, cast

import yaml

from milk_tui.eval.records import Label, Scoring

SCORINGS: tuple[Scoring, ...] = ("binary", "scale_1_5")
LABELS: tuple[str, ...] = ("primary", "escalation")


@dataclass(frozen=True)
class Criterion:
    criterion: str
    description: str = ""
    weight: float = 1.0
    scoring: Scoring = "scale_1_5"


@dataclass(frozen=True)
class Turn:
    prompt: str
    rubric: tuple[Criterion, ...] = ()
    route: Label = ""


@dataclass(frozen=True)
class FileExpect:
    path: str
    contains: str = ""


@dataclass(frozen=True)
class Expected:
    """Checked after the scenario's last turn (Go's ``expected``, which Go never checked)."""

    contains: tuple[str, ...] = ()
    files_changed: tuple[FileExpect, ...] = ()


@dataclass(frozen=True)
class CacheExpect:
    """Checked on every turn after the first."""

    min_cache_hit_rate_after_turn1: float | None = None
    no_cache_recreate_after_turn1: bool = False


@dataclass(frozen=True)
class Scenario:
    name: str
    turns: tuple[Turn, ...]
    description: str = ""
    category: str = ""
    difficulty: str = ""
    setup_files: tuple[tuple[str, str], ...] = ()
    expected: Expected = field(default_factory=Expected)
    cache_expect: CacheExpect = field(default_factory=CacheExpect)
    source: str = ""
    """The file it came from."""


@dataclass
class Defaults:
    scoring: Scoring = "scale_1_5"
    weight: float = 1.0


class ScenarioError(ValueError):
    """One line: the field at fault (the caller prefixes the file)."""


def builtin_dir() -> Path:
    """The suite that ships in the package (``milk_tui/eval/suite/``)."""
    return Path(str(resources.files("milk_tui.eval") / "suite"))


def load_scenarios(where: Path | None = None) -> tuple[list[Scenario], list[str]]:
    """Every scenario of a folder (or of one file), sorted by category then name, and one
    problem line per file that did not load.  ``None``: the built-in suite."""
    where = builtin_dir() if where is None else where
    problems: list[str] = []
    if where.is_file():
        files, base = [where], where.parent / "_base.yaml"
    elif where.is_dir():
        files = sorted(p for p in where.iterdir() if p.suffix in (".yaml", ".yml"))
        files = [p for p in files if not p.name.startswith("_")]
        base = where / "_base.yaml"
    else:
        return [], [f"{where}: no such scenario file or folder"]
    defaults = Defaults()
    if base.is_file():
        try:
            defaults = _defaults(_read(base))
        except ScenarioError as e:
            problems.append(f"{base}: {e}")
    found: list[Scenario] = []
    seen: dict[str, str] = {}
    for path in files:
        try:
            loaded = _file(_read(path), defaults, str(path))
        except ScenarioError as e:
            problems.append(f"{path}: {e}")
            continue
        dup = next((s.name for s in loaded if s.name in seen), "")
        if dup:
            problems.append(f"{path}: name: '{dup}' is already defined in {seen[dup]}")
            continue
        for s in loaded:
            seen[s.name] = str(path)
        found.extend(loaded)
    found.sort(key=lambda s: (s.category, s.name))
    return found, problems


def _read(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ScenarioError(f"cannot read ({e.strerror or e})") from None
    except UnicodeDecodeError:
        raise ScenarioError("not UTF-8 text") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise ScenarioError(f"not valid YAML{where}: {getattr(e, 'problem', '') or e}") from None


def _defaults(data: Any) -> Defaults:
    if data is None:
        return Defaults()
    if not isinstance(data, dict):
        raise ScenarioError("expected a mapping of default_scoring and default_weight")
    return Defaults(
        scoring=_scoring(data.get("default_scoring", "scale_1_5"), "default_scoring"),
        weight=_number(data.get("default_weight", 1), "default_weight"),
    )


def _file(data: Any, defaults: Defaults, source: str) -> list[Scenario]:
    if not isinstance(data, dict):
        raise ScenarioError("expected a mapping (a scenario, or category + scenarios)")
    if "scenarios" not in data:
        return [_scenario(data, defaults, "", source, "")]
    items = data["scenarios"]
    if not isinstance(items, list):
        raise ScenarioError("scenarios: expected a list")
    category = _text(data.get("category", ""), "category")
    return [
        _scenario(item, defaults, category, source, f"scenarios[{i}].")
        for i, item in enumerate(items)
    ]


def _scenario(data: Any, defaults: Defaults, category: str, source: str, at: str) -> Scenario:
    if not isinstance(data, dict):
        raise ScenarioError(f"{at.rstrip('.') or 'scenario'}: expected a mapping")
    name = _text(data.get("name", ""), f"{at}name")
    if not name.strip():
        raise ScenarioError(f"{at}name: missing")
    at = f"{at}{name}: " if at else ""
    if "prompt" in data and "turns" in data:
        raise ScenarioError(f"{at}prompt, turns: give one, not both")
    if "turns" in data:
        raw_turns = data["turns"]
        if not isinstance(raw_turns, list) or not raw_turns:
            raise ScenarioError(f"{at}turns: expected a non-empty list")
        turns = tuple(_turn(t, defaults, f"{at}turns[{i}].") for i, t in enumerate(raw_turns))
    else:
        prompt = _text(data.get("prompt", ""), f"{at}prompt")
        if not prompt.strip():
            raise ScenarioError(f"{at}prompt: missing (a scenario needs prompt or turns)")
        rubric = _rubric(data.get("rubric"), defaults, f"{at}rubric")
        turns = (Turn(prompt, rubric, _label(data.get("route", ""), f"{at}route")),)
    if "turns" in data and data.get("route"):
        raise ScenarioError(f"{at}route: with turns, label each turn")
    return Scenario(
        name=name.strip(),
        turns=turns,
        description=_text(data.get("description", ""), f"{at}description").strip(),
        category=_text(data.get("category", category), f"{at}category"),
        difficulty=_text(data.get("difficulty", ""), f"{at}difficulty"),
        setup_files=_setup(data.get("setup"), f"{at}setup"),
        expected=_expected(data.get("expected"), f"{at}expected"),
        cache_expect=_cache(data.get("cache_expect"), f"{at}cache_expect"),
        source=source,
    )


def _turn(data: Any, defaults: Defaults, at: str) -> Turn:
    if not isinstance(data, dict):
        raise ScenarioError(f"{at.rstrip('.')}: expected a mapping with prompt")
    prompt = _text(data.get("prompt", ""), f"{at}prompt")
    if not prompt.strip():
        raise ScenarioError(f"{at}prompt: missing")
    return Turn(
        prompt,
        _rubric(data.get("rubric"), defaults, f"{at}rubric"),
        _label(data.get("route", ""), f"{at}route"),
    )


def _rubric(data: Any, defaults: Defaults, at: str) -> tuple[Criterion, ...]:
    if data is None:
        return ()
    if not isinstance(data, list):
        raise ScenarioError(f"{at}: expected a list of criteria")
    out = []
    for i, c in enumerate(data):
        here = f"{at}[{i}]"
        if not isinstance(c, dict):
            raise ScenarioError(f"{here}: expected a mapping with criterion")
        name = _text(c.get("criterion", ""), f"{here}.criterion").strip()
        if not name:
            raise ScenarioError(f"{here}.criterion: missing")
        weight = _number(c.get("weight", defaults.weight), f"{here}.weight")
        if weight < 0:
            raise ScenarioError(f"{here}.weight: must not be negative")
        out.append(
            Criterion(
                name,
                _text(c.get("description", ""), f"{here}.description").strip(),
                weight,
                _scoring(c.get("scoring", defaults.scoring), f"{here}.scoring"),
            )
        )
    return tuple(out)


def _setup(data: Any, at: str) -> tuple[tuple[str, str], ...]:
    if data is None:
        return ()
    if not isinstance(data, dict):
        raise ScenarioError(f"{at}: expected a mapping with files")
    files = data.get("files") or []
    if not isinstance(files, list):
        raise ScenarioError(f"{at}.files: expected a list")
    out = []
    for i, f in enumerate(files):
        here = f"{at}.files[{i}]"
        if not isinstance(f, dict):
            raise ScenarioError(f"{here}: expected a mapping with path and content")
        out.append((_relative(f.get("path", ""), f"{here}.path"),
                    _text(f.get("content", ""), f"{here}.content")))  # fmt: skip
    return tuple(out)


def _expected(data: Any, at: str) -> Expected:
    if data is None:
        return Expected()
    if not isinstance(data, dict):
        raise ScenarioError(f"{at}: expected a mapping of contains and files_changed")
    contains = data.get("contains") or []
    if isinstance(contains, str):
        contains = [contains]
    if not isinstance(contains, list):
        raise ScenarioError(f"{at}.contains: expected a list of texts")
    changed = data.get("files_changed") or []
    if not isinstance(changed, list):
        raise ScenarioError(f"{at}.files_changed: expected a list")
    files = []
    for i, f in enumerate(changed):
        here = f"{at}.files_changed[{i}]"
        if isinstance(f, str):
            files.append(FileExpect(_relative(f, here)))
        elif isinstance(f, dict):
            files.append(FileExpect(_relative(f.get("path", ""), f"{here}.path"),
                                    _text(f.get("contains", ""), f"{here}.contains")))  # fmt: skip
        else:
            raise ScenarioError(f"{here}: expected a path or a mapping with path")
    return Expected(
        tuple(_text(c, f"{at}.contains[{i}]") for i, c in enumerate(contains)), tuple(files)
    )


def _cache(data: Any, at: str) -> CacheExpect:
    if data is None:
        return CacheExpect()
    if not isinstance(data, dict):
        raise ScenarioError(f"{at}: expected a mapping")
    rate = data.get("min_cache_hit_rate_after_turn1")
    here = f"{at}.min_cache_hit_rate_after_turn1"
    if rate is not None and not 0 <= _number(rate, here) <= 1:
        raise ScenarioError(f"{here}: expected a number from 0 to 1")
    recreate = data.get("no_cache_recreate_after_turn1", False)
    if not isinstance(recreate, bool):
        raise ScenarioError(f"{at}.no_cache_recreate_after_turn1: expected true or false")
    return CacheExpect(None if rate is None else float(rate), recreate)


def _text(v: Any, at: str) -> str:
    if v is None:
        return ""
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        raise ScenarioError(f"{at}: expected text, got {type(v).__name__}")
    return str(v)


def _number(v: Any, at: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ScenarioError(f"{at}: expected a number, got {v!r}")
    return float(v)


def _scoring(v: Any, at: str) -> Scoring:
    if v not in SCORINGS:
        raise ScenarioError(f"{at}: expected binary or scale_1_5, got {v!r}")
    return cast(Scoring, v)


def _label(v: Any, at: str) -> Label:
    if v in ("", None):
        return ""
    if v not in LABELS:
        raise ScenarioError(f"{at}: expected primary or escalation, got {v!r}")
    return cast(Label, v)


def _relative(v: Any, at: str) -> str:
    """A path inside the scenario's folder: never absolute, never climbing out of it."""
    text = _text(v, at).strip()
    p = PurePosixPath(text)
    if not text or p.is_absolute() or ".." in p.parts or "\\" in text:
        raise ScenarioError(f"{at}: expected a relative path inside the folder, got {text!r}")
    return str(p)
