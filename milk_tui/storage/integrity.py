"""Is the database file damaged?  ``PRAGMA quick_check`` started early in a thread, or at
open within a small time budget.

The check reads every page (12–40 ms for a 10,000-turn, 14 MB database, seconds for a
million facts: bench/db_open.py), so its cost must not reach the user in proportion to the
store.  SQLite releases the GIL while it reads, so ``check_soon`` — called by the TUI before
its first frame and by the command line before its imports — runs it beside the start-up
on another core, within the open's budget; the database's open collects the answer, and a check still running then
is stopped where it got to, never waited for (``Database`` calls ``quick_check``).  An open
with no early check runs its own for ``OPEN_BUDGET_S``: a small store is checked whole, a
large one as far as the budget reaches.  Damage past either point is caught the moment
SQLite reports a damaged page (``Database.failure``).
"""

from __future__ import annotations

import sqlite3
import threading
from concurrent.futures import Future
from pathlib import Path

from milk_tui.model.errors import CorruptDatabaseError

OPEN_BUDGET_S = 0.015
"""Time a check at open, on the caller's thread, may take: a store of a few MB whole."""
CHECK_BUDGET_S = OPEN_BUDGET_S
"""Time an early check (in its thread, beside the start-up) may take: the open's.  Its time
is a core's: on a shared 2-core host a longer check (it was 100 ms) slowed the start-up
beside it, so a command on a large store (which runs it to the budget) cost ~15 % more
than on an empty one (which checks in a millisecond), for a check that still reached only
the file's first pages (docs/performance.md, "Scale, round 2")."""
_CORRUPT_CODES = (11, 26)
"""SQLITE_CORRUPT and SQLITE_NOTADB (primary result codes): https://www.sqlite.org/rescode.html"""


class _EarlyCheck:
    """One early check: its answer (the first row of ``quick_check``: "ok", a problem, or ""
    for not answered) and a way for the open to stop it where it got to."""

    def __init__(self) -> None:
        self.answer: Future[str] = Future()
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._stopped = False

    def running_on(self, conn: sqlite3.Connection) -> bool:
        """The check's connection is open; False when the open already stopped it."""
        with self._lock:
            self._conn = conn
            return not self._stopped

    def finished(self) -> None:
        with self._lock:
            self._conn = None

    def stop(self) -> str:
        """Stop the check where it got to and return its answer.  An interrupt that arrives
        between two statements is lost (SQLite ignores one when nothing runs), so it is
        repeated until the check has answered."""
        while True:
            with self._lock:
                self._stopped = True
                if self._conn is not None:
                    self._conn.interrupt()  # thread-safe: the check answers "ok" so far
            try:
                return self.answer.result(timeout=0.005)
            except TimeoutError:
                continue


_early: dict[Path, _EarlyCheck] = {}
"""Early checks by resolved path."""


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


def _first_row(conn: sqlite3.Connection, budget_s: float = OPEN_BUDGET_S) -> str:
    """``quick_check``'s first row within ``budget_s``; "ok" for a check cut short by the
    budget or by the open (the rest is caught on use).  A timer interrupts the check: a
    progress handler would need the GIL every few thousand steps, which a busy thread beside
    it (Textual's start-up, the event loop) holds."""
    timer = threading.Timer(budget_s, conn.interrupt)
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
    check = _EarlyCheck()
    _early[path] = check
    answer = check.answer

    def run() -> None:
        try:
            conn = sqlite3.connect(str(path), timeout=1.0, check_same_thread=False)
            try:
                if check.running_on(conn):
                    answer.set_result(_first_row(conn, CHECK_BUDGET_S))
                else:
                    answer.set_result("")  # stopped before it began: the open checks
            finally:
                check.finished()
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
    damaged: the early check's answer when one was started (stopped where it got to if it
    is still running), else a check on ``conn`` within ``OPEN_BUDGET_S``."""
    early = _early.pop(path.resolve(), None)
    row = ""
    if early is not None:
        row = early.answer.result() if early.answer.done() else early.stop()
    if not row:
        row = _first_row(conn)
    if row != "ok":
        raise CorruptDatabaseError(corrupt_message(path, f"quick_check: {row}"))
