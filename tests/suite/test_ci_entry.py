"""CI runs exactly the README's test command, and that command shows why a test skipped."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _readme_test_command() -> str:
    readme = (REPO / "README.md").read_text()
    after = readme.split("Run every check and the whole test suite", 1)[1]
    block = re.search(r"```sh\n(.*?)```", after, re.S)
    assert block, "the README's test command block is gone"
    return block.group(1).strip()


def test_ci_runs_the_readme_command() -> None:
    lines = [ln for ln in (REPO / ".ci" / "run").read_text().splitlines() if ln.strip()]
    assert lines[-1].strip() == _readme_test_command() == "scripts/test"


def test_the_test_command_prints_skip_reasons_on_two_workers() -> None:
    script = (REPO / "scripts" / "test").read_text()
    pytest_line = [ln for ln in script.splitlines() if "-m pytest" in ln]
    assert len(pytest_line) == 1
    assert " -rs " in pytest_line[0] and '-n "${MILK_TEST_WORKERS:-2}"' in pytest_line[0]
    assert "-p no:randomly" not in pytest_line[0]  # shuffled by default
