"""The built-in eval suite (milk_tui/eval/suite/): every file parses, every scenario has the
Go format's fields plus our ``route`` label on each turn, and the labels are balanced."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

import milk_tui

SUITE = Path(milk_tui.__file__).parent / "eval" / "suite"
FILES = ("memory", "edits", "debugging", "design", "handoff")
LABELS = {"primary", "escalation"}


def _scenarios() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for name in FILES:
        data = yaml.safe_load((SUITE / f"{name}.yaml").read_text(encoding="utf-8"))
        assert isinstance(data, dict) and data.get("category"), name
        for s in data["scenarios"]:
            out.append((name, s))
    return out


def labelled_turns() -> list[tuple[str, str]]:
    """(prompt, label) for every turn of the suite, in file order."""
    turns = []
    for _file, s in _scenarios():
        for t in s.get("turns") or [s]:
            turns.append((str(t["prompt"]).strip(), str(t["route"])))
    return turns


def _check_rubric(where: str, rubric: Any) -> None:
    assert isinstance(rubric, list) and rubric, f"{where}: rubric"
    for c in rubric:
        assert c.get("criterion") and c.get("description"), f"{where}: {c}"
        assert c.get("scoring", "scale_1_5") in ("binary", "scale_1_5"), where


def test_base_defaults_parse():
    base = yaml.safe_load((SUITE / "_base.yaml").read_text(encoding="utf-8"))
    assert base == {"default_scoring": "scale_1_5", "default_weight": 1}


def test_every_scenario_has_the_fields_and_labels():
    names: set[str] = set()
    for file, s in _scenarios():
        where = f"{file}.yaml:{s.get('name')}"
        assert s.get("name") and s["name"] not in names, where
        names.add(s["name"])
        assert s.get("description") and s.get("difficulty") in ("easy", "medium", "hard"), where
        assert ("prompt" in s) != ("turns" in s), f"{where}: prompt or turns, not both"
        if "turns" in s:
            assert s.get("multi_turn") is True and len(s["turns"]) >= 2, where
            for i, t in enumerate(s["turns"]):
                assert t.get("prompt") and t.get("route") in LABELS, f"{where} turn {i}"
                _check_rubric(f"{where} turn {i}", t.get("rubric"))
        else:
            assert s.get("route") in LABELS, where
            _check_rubric(where, s.get("rubric"))
        for f in (s.get("setup") or {}).get("files") or []:
            assert f["path"] and not Path(f["path"]).is_absolute() and ".." not in f["path"]
            assert isinstance(f["content"], str), where
        expected = s.get("expected") or {}
        assert set(expected) <= {"contains", "files_changed"}, where
        for c in expected.get("files_changed") or []:
            assert c["path"] and isinstance(c.get("contains", ""), str), where


def test_at_least_thirty_turns_about_half_each_way():
    turns = labelled_turns()
    assert len(turns) >= 30
    share = sum(1 for _, label in turns if label == "escalation") / len(turns)
    assert 0.4 <= share <= 0.6, share
