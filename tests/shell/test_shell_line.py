"""The direct-shell recognition rules, line by line: prose stays a prompt, commands run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from milk_tui.engine.shell_line import shell_line

COMMANDS = [
    ("git status", "git"),
    ("ls -la", "ls"),
    ("grep -rn TODO milk_tui", "grep"),
    ("make test", "make"),
    ("python -c 'print(1)'", "python"),
    ("echo 'why is this here?' > /tmp/x", "echo"),
    ("find . -name '*.py'", "find"),
    ("which python", "which"),
    ("!what is this", "what"),
    ("! git log --oneline", "git"),
    ("./run.sh --fast", "./run.sh"),
]
PROSE = [
    "fix the failing test in parser.py",
    "why does ls fail here",
    "make the tests pass",
    "find bugs in the parser please",
    "find bugs in parser module quickly",
    "git status?",
    "explain git rebase",
    "yes do it",
    "hello",
    "ls\nrm -rf /",
    "echo " + "x" * 200,
    "!",
    "nosuchprogram-xyz --help",
    "cat my notes",
    "sort these lines for me",
]


@pytest.fixture
def cwd(tmp_path: Path) -> str:
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\necho ran\n")
    script.chmod(0o755)
    return str(tmp_path)


@pytest.mark.parametrize(("line", "first"), COMMANDS)
def test_commands_are_recognised(line: str, first: str, cwd: str) -> None:
    got = shell_line(line, cwd)
    assert got is not None, line
    assert got.first_word == first
    assert got.explicit == line.startswith("!")


@pytest.mark.parametrize("line", PROSE)
def test_prose_is_a_prompt(line: str, cwd: str) -> None:
    assert shell_line(line, cwd) is None


def test_only_programs_on_the_given_path_count(cwd: str) -> None:
    assert shell_line("git status", cwd, path=cwd) is None  # no git in that folder
    assert shell_line("ls", cwd, path=os.defpath) is not None


def test_allow_list_and_bang_run_at_once(cwd: str) -> None:
    line = shell_line("git status", cwd)
    assert line is not None
    assert line.runs_at_once(["git"]) and not line.runs_at_once(["ls"])
    bang = shell_line("!rm -i x", cwd)
    assert bang is not None and bang.runs_at_once([])
