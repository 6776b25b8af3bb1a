"""Scenario files: Go milk's eval files load unchanged (copies in go_scenarios/), our
``route`` labels load, and a bad file is one line naming the file and the field while the
other files still load."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from milk_tui.eval.scenarios import builtin_dir, load_scenarios

GO = Path(__file__).parent / "go_scenarios"


def test_every_go_scenario_file_loads_unchanged() -> None:
    found, problems = load_scenarios(GO)
    assert problems == []
    by = {s.name: s for s in found}
    assert sorted(by) == sorted(["fix-typo", "add-function", "write-test", "fix-nil-pointer",
                                 "fix-off-by-one", "iterative-refactor", "add-validation",
                                 "say-pong"])  # fmt: skip
    typo = by["fix-typo"]
    assert typo.category == "code_generation" and typo.difficulty == "easy"
    assert typo.setup_files[0][0] == "README.md" and "Projcet" in typo.setup_files[0][1]
    (turn,) = typo.turns
    assert "projcet" in turn.prompt and turn.route == ""
    assert [(c.criterion, c.weight, c.scoring) for c in turn.rubric] == [
        ("correctness", 3, "binary"), ("efficiency", 1, "scale_1_5")]  # fmt: skip
    refactor = by["iterative-refactor"]
    assert len(refactor.turns) == 3 and refactor.category == "refactoring"
    assert refactor.cache_expect.min_cache_hit_rate_after_turn1 == 0.5
    assert refactor.cache_expect.no_cache_recreate_after_turn1 is True
    assert refactor.turns[1].rubric[1].criterion == "code_quality"
    # sorted by category, then name
    assert [s.category for s in found] == sorted(s.category for s in found)


def test_base_defaults_fill_criteria_that_lack_them(tmp_path: Path) -> None:
    (tmp_path / "_base.yaml").write_text("default_scoring: binary\ndefault_weight: 4\n")
    (tmp_path / "a.yaml").write_text(
        "name: a\nprompt: hi\nroute: escalation\nrubric:\n  - criterion: c\n"
        "  - criterion: d\n    weight: 2\n    scoring: scale_1_5\n"
    )
    (found,), problems = load_scenarios(tmp_path)
    assert problems == []
    assert [(c.weight, c.scoring) for c in found.turns[0].rubric] == [
        (4, "binary"), (2, "scale_1_5")]  # fmt: skip
    assert found.turns[0].route == "escalation"


BAD = {
    "yaml.yaml": ("name: x\nprompt: [unclosed\n", "not valid YAML at line"),
    "scoring.yaml": ("name: s\nprompt: hi\nrubric:\n  - criterion: c\n    scoring: stars\n",
                     "rubric[0].scoring: expected binary or scale_1_5, got 'stars'"),
    "route.yaml": ("scenarios:\n  - name: r\n    turns:\n      - prompt: hi\n        route: cloud\n",
                   "scenarios[0].r: turns[0].route: expected primary or escalation"),
    "noprompt.yaml": ("name: n\n", "prompt: missing"),
    "escape.yaml": ("name: e\nprompt: hi\nsetup:\n  files:\n    - path: ../../etc/x\n",
                    "setup.files[0].path: expected a relative path inside the folder"),
    "weight.yaml": ("name: w\nprompt: hi\nrubric:\n  - criterion: c\n    weight: heavy\n",
                    "rubric[0].weight: expected a number"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_file_is_one_line_and_the_rest_still_load(tmp_path: Path, name: str) -> None:
    for f in GO.iterdir():
        shutil.copy(f, tmp_path / f.name)
    text, line = BAD[name]
    (tmp_path / name).write_text(text)
    found, problems = load_scenarios(tmp_path)
    assert len(found) == 8  # every Go scenario still there
    (problem,) = problems
    assert problem.startswith(f"{tmp_path / name}: ") and line in problem, problem
    assert "\n" not in problem


def test_a_name_defined_twice_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("name: same\nprompt: one\n")
    (tmp_path / "b.yaml").write_text("name: same\nprompt: two\n")
    found, problems = load_scenarios(tmp_path)
    assert [s.turns[0].prompt for s in found] == ["one"]
    assert problems == [f"{tmp_path / 'b.yaml'}: name: 'same' is already defined in "
                        f"{tmp_path / 'a.yaml'}"]  # fmt: skip


def test_the_builtin_suite_loads_and_every_turn_is_labelled() -> None:
    assert (builtin_dir() / "smoke.yaml").is_file()
    found, problems = load_scenarios(None)
    assert problems == [] and found
    assert all(t.route in ("primary", "escalation") for s in found for t in s.turns)


def test_the_builtin_suite_ships_in_the_wheel() -> None:
    """The package-data globs of pyproject.toml cover every file of the suite folder (a
    real wheel build needs a network; tests/core/test_packaging.py checks the same way)."""
    import fnmatch
    import tomllib

    conf = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["tool"]
    assert "milk_tui.eval.suite" in conf["setuptools"]["packages"]
    globs = [*conf["setuptools"]["package-data"]["milk_tui.eval.suite"], "*.py"]
    suite = builtin_dir()
    files = [p.name for p in suite.iterdir() if p.is_file()]
    assert files and all(any(fnmatch.fnmatch(f, g) for g in globs) for f in files), files
