"""scripts/mutants.toml does not rot: every mutant's snippet is in its file exactly once,
its replacement differs, and every test it names exists (scripts/mutate runs the list)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def mutants() -> list[dict]:
    with (REPO / "scripts" / "mutants.toml").open("rb") as f:
        return tomllib.load(f)["mutant"]


def test_every_snippet_is_in_its_file_once_and_every_test_exists() -> None:
    listed = mutants()
    assert 25 <= len(listed) <= 40
    assert len({m["name"] for m in listed}) == len(listed)
    for m in listed:
        source = (REPO / m["file"]).read_text(encoding="utf-8")
        assert source.count(m["original"]) == 1, m["name"]
        assert m["replacement"] != m["original"], m["name"]
        assert m["tests"], m["name"]
        for test in m["tests"]:
            path, _, name = test.partition("::")
            text = (REPO / path).read_text(encoding="utf-8")
            assert re.search(rf"^(async )?def {re.escape(name)}\(", text, re.M), test
