"""``milk-tui import-go`` of a generated Go install (``milk_tui/testing/go_install.py``), run as
a user runs it: everything arrives, the index and word counts are what one-by-one inserts
write, a second import adds nothing, and progress reads right in a pipe and on a terminal."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from milk_tui.memory.store import PerceptFilter, PerceptStore
from milk_tui.storage.db import Database
from milk_tui.testing.cli_run import MILK_COMMAND, run_milk
from milk_tui.testing.go_install import fact_id, make_go_install, session_id
from milk_tui.testing.pty_run import run_in_pty

FACTS, SESSIONS, OWN = 3000, 6, 5


@pytest.fixture
def install(tmp_path: Path) -> Path:
    return make_go_install(tmp_path / "go", FACTS, sessions=SESSIONS, session_facts=OWN)


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "MILK_HOME": str(home), "HOME": str(home), "NO_COLOR": "1"}


def _rows(db: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as c:
        return c.execute(sql).fetchall()


def test_every_fact_and_session_arrives_once_and_indexed(install: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = run_milk("import-go", str(install), cwd=tmp_path, env=_env(home), timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"facts: {FACTS} imported, 0 already present" in done.stdout
    db = home / "milk.db"
    assert {r[0] for r in _rows(db, "SELECT ext_id FROM percepts")} == {
        fact_id(i) for i in range(FACTS)
    }
    assert {r[0] for r in _rows(db, "SELECT id FROM sessions")} == {
        session_id(k) for k in range(SESSIONS)
    }
    own = _rows(db, f"SELECT count(*) FROM percepts WHERE session_id = '{session_id(2)}'")
    assert own == [(OWN,)]
    assert _rows(db, "SELECT count(*) FROM turns") == [(SESSIONS * 4,)]
    # The full-text index and the word counts are what PerceptStore.insert one by one writes.
    with sqlite3.connect(db) as c:
        c.execute("INSERT INTO percepts_fts(percepts_fts, rank) VALUES ('integrity-check', 1)")
    ref = Database(tmp_path / "ref.db")
    store = PerceptStore(ref)
    with ref.transaction() as conn:
        for p in PerceptStore(Database(db)).list(PerceptFilter(), limit=FACTS, order="id"):
            store.insert(conn, p)
    assert _rows(db, "SELECT term, df FROM percept_terms ORDER BY term") == [
        tuple(r) for r in ref.query("SELECT term, df FROM percept_terms ORDER BY term")
    ]
    hits = PerceptStore(Database(db)).search("kafka router", limit=5000, count=True)
    assert hits[1] == store.search("kafka router", limit=5000)[1] > 0

    again = run_milk("import-go", str(install), cwd=tmp_path, env=_env(home), timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"facts: 0 imported, {FACTS} already present" in again.stdout
    assert f"sessions: 0 imported, {SESSIONS} already present" in again.stdout
    assert _rows(db, "SELECT count(*) FROM percepts") == [(FACTS,)]
    assert _rows(db, "SELECT count(*) FROM percepts_fts") == [(FACTS,)]


def test_progress_in_a_pipe_is_a_plain_line_per_step(install: Path, tmp_path: Path) -> None:
    done = run_milk("import-go", str(install), cwd=tmp_path, env=_env(tmp_path / "h"), timeout=300)
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stderr and "\x1b" not in done.stderr
    global_facts = FACTS - SESSIONS * OWN
    assert done.stderr.splitlines() == [
        f"import-go: sessions: {SESSIONS}/{SESSIONS}",
        f"import-go: facts (global.json): {global_facts:,}/{global_facts:,}",
        f"import-go: facts (sessions' files): {SESSIONS}/{SESSIONS}",
    ]


def test_progress_on_a_terminal_is_a_bar_that_ends_each_step_on_its_line(
    install: Path, tmp_path: Path
) -> None:
    run = run_in_pty(
        [*MILK_COMMAND, "import-go", str(install)], cwd=tmp_path, env=_env(tmp_path / "h"),
        timeout=300,
    )  # fmt: skip
    assert run.code == 0, run.text()
    assert b"\r\x1b[K" in run.raw and "█".encode() in run.raw
    screen = [ln.rstrip() for ln in run.screen.display if ln.strip()]
    global_facts = FACTS - SESSIONS * OWN
    assert screen[0].startswith("import-go sessions [" + "█" * 24 + "]")
    assert screen[1].endswith(f"] {global_facts:,}/{global_facts:,}")
    assert screen[2].startswith("import-go facts (sessions' files) [")
    assert screen[3].startswith(f"sessions: {SESSIONS} imported")
