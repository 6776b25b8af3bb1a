"""A database written by release 0.1.0 opens unchanged with today's code.

``tests/fixtures/db-0.1.0/`` holds a ``milk.db`` made by the 0.1.0 CLI (demo agents: a
primary turn, an escalation, a named session, user facts pinned and edited) and the JSON
that release printed for it.  Today's CLI must print the same JSON and keep writing to it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from milk_tui.testing.cli_run import run_milk

FIXTURE = Path(__file__).parent / "fixtures" / "db-0.1.0"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(FIXTURE / "milk.db", home / "milk.db")
    return home


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MILK_HOME": str(home)}
    env.pop("MILK_CONFIG", None)
    return run_milk(*args, cwd=home, env=env)


def _json(home: Path, *args: str) -> object:
    out = _cli(home, *args)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _golden(name: str) -> object:
    return json.loads((FIXTURE / name).read_text())


def test_sessions_list_is_unchanged(home: Path) -> None:
    listed = _json(home, "sessions", "list", "--all", "--json")
    assert isinstance(listed, list)
    # `questions` came after 0.1.0 (docs/interfaces.md): every key 0.1.0 wrote is unchanged.
    assert [r.pop("questions") for r in listed] == [1, 3]
    assert listed == _golden("sessions-list.json")


def test_every_session_shows_unchanged(home: Path) -> None:
    sessions = _golden("sessions-list.json")
    assert isinstance(sessions, list) and len(sessions) == 2
    for s in sessions:
        sid = s["id"]
        got = _json(home, "sessions", "show", sid, "--json", "--any-folder")  # made elsewhere
        assert got == _golden(f"session-{sid}.json")


def test_facts_are_unchanged(home: Path) -> None:
    assert _json(home, "memory", "list", "--json") == _golden("memory-list.json")


def test_the_old_database_takes_new_writes(home: Path) -> None:
    out = _cli(home, "memory", "add", "a fact written after the upgrade")
    assert out.returncode == 0, out.stderr
    facts = _json(home, "memory", "list", "--json")
    before = _golden("memory-list.json")
    assert isinstance(facts, list) and isinstance(before, list)
    assert [f["content"] for f in facts if f not in before] == ["a fact written after the upgrade"]
