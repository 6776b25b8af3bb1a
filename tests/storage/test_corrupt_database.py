"""A database file damaged at the page level is refused with one line that says how to
recover — at open (``quick_check``) or when SQLite reports a damaged page later — and is
never written to."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from pathlib import Path

import pytest

from milk_tui.model.session import Turn
from milk_tui.storage import db as dbmod
from milk_tui.storage.db import CorruptDatabaseError, Database
from milk_tui.storage.sessions import SessionStore
from milk_tui.testing.cli_run import run_milk


def _filled(path: Path, turns: int = 400) -> str:
    db = Database(path)
    store = SessionStore(db)
    s = store.create("/p", "filled")
    new = [Turn("user" if i % 2 == 0 else "assistant", f"line {i} " * 40) for i in range(turns)]
    s.history.extend(new)
    store.commit_turns(s, new)
    db.close()  # the last connection checkpoints the WAL into the main file
    return s.id


def _damage_page_of(path: Path, table: str) -> None:
    """Overwrite the b-tree page header of ``table``'s root page with garbage."""
    conn = sqlite3.connect(path)
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with open(path, "r+b") as f:
        f.seek((root - 1) * size)
        f.write(b"\x42" * 64)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_damaged_page_is_refused_at_open_and_the_file_is_untouched(tmp_path: Path) -> None:
    path = tmp_path / "milk.db"
    _filled(path)
    _damage_page_of(path, "turns")
    before = _digest(path)
    with pytest.raises(CorruptDatabaseError) as e:
        Database(path)
    msg = str(e.value)
    assert "\n" not in msg and str(path) in msg and ".recover" in msg and "mv " in msg
    assert _digest(path) == before
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0


def test_damage_found_after_open_refuses_every_later_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "milk.db"
    sid = _filled(path)
    _damage_page_of(path, "turns")
    monkeypatch.setattr(dbmod.Database, "_quick_check", lambda self: None)  # a check cut short
    db = Database(path)
    store = SessionStore(db)
    before = _digest(path)
    with pytest.raises(CorruptDatabaseError, match="recover"):
        store.load(sid)
    s = store.create  # any write from now on is refused before it starts
    with pytest.raises(CorruptDatabaseError, match="recover"):
        s("/p")
    with pytest.raises(CorruptDatabaseError):
        with db.transaction() as conn:
            conn.execute("INSERT INTO input_history (session_id, text, ts) VALUES ('', 'x', 0)")
    db.close()
    assert _digest(path) == before


@pytest.mark.parametrize("argv", [("sessions", "list"), ("-p", "hello", "--demo")])
def test_the_cli_says_one_line_and_no_traceback(
    milk_home: Path, tmp_path: Path, argv: tuple[str, ...]
) -> None:
    path = milk_home / "milk.db"
    _filled(path)
    _damage_page_of(path, "sessions")
    before = _digest(path)
    out = run_milk(*argv, cwd=tmp_path)
    assert out.returncode == 1
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "is damaged" in lines[0] and ".recover" in lines[0], lines
    assert _digest(path) == before


def test_not_a_database_at_all_is_named_as_damaged(tmp_path: Path) -> None:
    path = tmp_path / "milk.db"
    path.write_bytes(b"SQLite format 3\x00" + b"\x00" * 84 + b"\xff" * 4000)
    with pytest.raises(dbmod.StorageError, match=str(path)):
        Database(path)


async def test_the_tui_says_the_same_one_line_and_leaves(milk_home: Path, tmp_path: Path) -> None:
    from milk_tui.facade.application import start
    from milk_tui.tui.app import EXIT_STARTUP_FAILED, MilkApp

    path = milk_home / "milk.db"
    _filled(path)
    _damage_page_of(path, "turns")
    before = _digest(path)
    app = MilkApp(runtime_factory=lambda: start(cwd=str(tmp_path), demo=True))
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(50):
            await pilot.pause(0.05)
            if app.startup_error:
                break
    assert app.return_value == EXIT_STARTUP_FAILED
    assert app.startup_error.startswith("storage error: ") and "\n" not in app.startup_error
    assert "is damaged" in app.startup_error and ".recover" in app.startup_error
    assert _digest(path) == before


def test_the_early_check_finds_a_damaged_page_and_the_open_refuses_it(tmp_path: Path) -> None:
    from milk_tui.storage import integrity

    path = tmp_path / "milk.db"
    _filled(path)
    _damage_page_of(path, "turns")
    before = _digest(path)
    integrity.check_soon(path)
    assert path.resolve() in integrity._early  # started, answered in its thread
    integrity._early[path.resolve()].answer.result(timeout=30)  # not stopped by the open
    with pytest.raises(CorruptDatabaseError, match="recover"):
        Database(path)
    assert path.resolve() not in integrity._early  # the open collected the answer
    assert _digest(path) == before


def test_the_open_uses_the_early_checks_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sound file checked early is not checked again at the open (the early answer is the
    one used), and a file not there yet is left to the open."""
    from milk_tui.storage import integrity

    path = tmp_path / "milk.db"
    _filled(path)
    integrity.check_soon(path)
    integrity._early[path.resolve()].answer.result(timeout=10)
    checks: list[bool] = []
    real = integrity._first_row
    monkeypatch.setattr(integrity, "_first_row", lambda c, **k: checks.append(True) or real(c))
    Database(path).close()
    assert checks == []
    integrity.check_soon(tmp_path / "new.db")
    assert (tmp_path / "new.db").resolve() not in integrity._early
    Database(tmp_path / "new.db").close()
    assert checks == [True]


@pytest.mark.timeout(60)
def test_the_open_stops_an_early_check_still_running_instead_of_waiting_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The open takes what the early check has read so far: a check that would run for
    ever (a query only an interrupt ends) is stopped, and the open goes on."""
    from milk_tui.storage import integrity

    path = tmp_path / "milk.db"
    _filled(path, turns=10)
    started = threading.Event()

    def endless(conn: sqlite3.Connection, budget_s: float = 0.0) -> str:
        started.set()
        try:
            conn.execute(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
                "SELECT count(*) FROM n"
            ).fetchall()
        except sqlite3.OperationalError as e:
            assert "interrupted" in str(e)
        return "ok"

    monkeypatch.setattr(integrity, "_first_row", endless)
    integrity.check_soon(path)
    assert started.wait(30)
    Database(path).close()  # hangs (the test's timeout fails it) unless the check is stopped
    assert path.resolve() not in integrity._early


def test_an_open_without_an_early_check_checks_within_its_own_small_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from milk_tui.storage import integrity

    path = tmp_path / "milk.db"
    _filled(path, turns=10)
    budgets: list[float] = []
    real = integrity._first_row
    monkeypatch.setattr(
        integrity,
        "_first_row",
        lambda c, budget_s=integrity.OPEN_BUDGET_S: budgets.append(budget_s) or real(c, budget_s),
    )
    Database(path).close()
    assert budgets == [integrity.OPEN_BUDGET_S] and integrity.OPEN_BUDGET_S <= 0.02


def test_an_early_check_has_the_opens_small_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The early check's time is a core's beside the start-up: it costs a large store no
    more than the open's own check would (an empty store's check ends at once)."""
    from milk_tui.storage import integrity

    path = tmp_path / "milk.db"
    _filled(path, turns=10)
    budgets: list[float] = []
    real = integrity._first_row
    monkeypatch.setattr(
        integrity,
        "_first_row",
        lambda c, budget_s=integrity.OPEN_BUDGET_S: budgets.append(budget_s) or real(c, budget_s),
    )
    integrity.check_soon(path)
    assert integrity._early[path.resolve()].answer.result(timeout=30) == "ok"
    Database(path).close()  # takes the early answer: checks nothing itself
    assert budgets == [integrity.CHECK_BUDGET_S] and integrity.CHECK_BUDGET_S <= 0.02
