"""Is the database file damaged?  ``PRAGMA quick_check`` at open, within a time budget,
and the same check started early in a thread.

The check reads every page (12–40 ms for a 10,000-turn, 14 MB database: bench/db_open.py).
SQLite releases the GIL while it reads, so ``check_soon`` — called by the TUI before its
first frame — runs it beside Textual's start-up on another core, and the database's open
later only collects the answer (``Database`` calls ``quick_check``, which waits for an early
check of the same file, or runs its own).
"""

from __future__ import annotations

import sqlite3
import threading
from concurrent.futures import Future
from pathlib import Path

from milk_tui.model.errors import CorruptDatabaseError

CHECK_BUDGET_S = 0.1
"""Time ``PRAGMA quick_check`` may take.  On a larger file the check stops at the budget and
the rest is caught the moment SQLite reports a damaged page (``Database.failure``)."""
_CORRUPT_CODES = (11, 26)
"""SQLITE_CORRUPT and SQLITE_NOTADB (primary result codes): https://www.sqlite.org/rescode.html"""

_early: dict[Path, Future[str]] = {}
"""Early checks by resolved path: the first row of ``quick_check`` ("ok" or a problem)."""


def is_corrupt(e: sqlite3.Error) -> bool:
    return ((getattr(e, "sqlite_errorcode", 0) or 0) & 0xFF) in _CORRUPT_CODES


def corrupt_message(path: Path, cause: str) -> str:
    """One line that says what is wrong and how to get going again."""
    cause = " ".join(cause.split())  # quick_check reports one problem per line
    cause = cause if len(cause) <= 160 else cause[:159] + "…"
    return (
        f"{path} is damaged ({cause}); milk-tui will not write to it. To recover, move it "
        f"aside (mv {path} {path}.bad) and start again, or rebuild it: "
        f"sqlite3 {path}.bad .recover | sqlite3 {path}"
    )


def _first_row(conn: sqlite3.Connection) -> str:
    """``quick_check``'s first row within ``CHECK_BUDGET_S``; "ok" for a check cut short by
    the budget (the rest is caught on use).  A timer interrupts the check: a progress
    handler would need the GIL every few thousand steps, which a busy thread beside it
    (Textual's start-up, the event loop) holds."""
    timer = threading.Timer(CHECK_BUDGET_S, conn.interrupt)
    timer.daemon = True
    timer.start()
    try:
        rows = conn.execute("PRAGMA quick_check(1)").fetchall()
    except sqlite3.OperationalError as e:
        if is_corrupt(e) or "interrupted" not in str(e):
            raise
        return "ok"
    finally:
        timer.cancel()
    return str(rows[0][0]) if rows else "ok"


def check_soon(path: Path) -> None:
    """Start checking an existing database file in a daemon thread, on its own connection.
    A file that is not there yet, or a check that fails for any reason but damage, leaves
    the check to the open."""
    path = path.resolve()
    if path in _early or not path.is_file():
        return
    answer: Future[str] = Future()
    _early[path] = answer

    def run() -> None:
        try:
            conn = sqlite3.connect(str(path), timeout=1.0, check_same_thread=False)
            try:
                answer.set_result(_first_row(conn))
            finally:
                conn.close()
        except sqlite3.Error as e:
            if is_corrupt(e):
                answer.set_exception(e)
            else:
                answer.set_result("")  # not answered: the open checks for itself
        except BaseException as e:  # noqa: BLE001 — never leave the open waiting
            answer.set_result("")
            if not isinstance(e, Exception):
                raise

    threading.Thread(target=run, name="db-check", daemon=True).start()


def quick_check(conn: sqlite3.Connection, path: Path) -> None:
    """Raise ``CorruptDatabaseError`` (or the SQLite error naming damage) when ``path`` is
    damaged: the early check's answer when one was started, else a check on ``conn``."""
    early = _early.pop(path.resolve(), None)
    row = early.result() if early is not None else ""
    if not row:
        row = _first_row(conn)
    if row != "ok":
        raise CorruptDatabaseError(corrupt_message(path, f"quick_check: {row}"))
