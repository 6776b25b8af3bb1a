"""The one SQLite database: connection settings and named, ordered schema migrations.

WAL lets a second milk-tui process read while one writes; ``busy_timeout`` makes writers
wait for each other instead of failing; every multi-row change is one ``BEGIN IMMEDIATE``
transaction so a crash leaves the last committed state intact.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from milk_tui.model.errors import (  # re-exported: callers import them here
    CorruptDatabaseError as CorruptDatabaseError,
)
from milk_tui.model.errors import (
    StorageError as StorageError,
)
from milk_tui.storage.integrity import corrupt_message, is_corrupt, quick_check

BUSY_TIMEOUT_MS = 10_000
"""Long enough for another process's largest transaction (consolidation of 100k facts ~2 s)."""


def _m001_sessions(db: MigrationConnection) -> None:
    db.executescript(
        """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL DEFAULT '',
            cwd TEXT NOT NULL,
            created_at REAL NOT NULL,
            last_used REAL NOT NULL,
            state TEXT NOT NULL DEFAULT 'ROUTING',
            meta TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX sessions_cwd ON sessions(cwd, last_used DESC);
        CREATE TABLE turns (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            role TEXT NOT NULL,
            agent TEXT NOT NULL DEFAULT '',
            agent_name TEXT NOT NULL DEFAULT '',
            content TEXT NOT NULL,
            thinking TEXT NOT NULL DEFAULT '',
            tool_calls TEXT NOT NULL DEFAULT '',
            context_text TEXT NOT NULL DEFAULT '',
            timestamp REAL NOT NULL
        );
        CREATE INDEX turns_session ON turns(session_id, id);
        CREATE TABLE tokens (
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            model TEXT NOT NULL,
            role TEXT NOT NULL,
            prompt INTEGER NOT NULL DEFAULT 0,
            completion INTEGER NOT NULL DEFAULT 0,
            cache_read INTEGER NOT NULL DEFAULT 0,
            cache_creation INTEGER NOT NULL DEFAULT 0,
            cost_usd REAL NOT NULL DEFAULT 0,
            PRIMARY KEY (session_id, model, role)
        );
        CREATE TABLE input_history (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL DEFAULT '',
            text TEXT NOT NULL,
            ts REAL NOT NULL
        );
        CREATE INDEX input_history_session ON input_history(session_id, id);
        """
    )


Migration = Callable[["MigrationConnection"], None]

MIGRATIONS: list[tuple[str, Migration]] = [
    ("001_sessions", _m001_sessions),
]
"""Append-only. Other modules (memory) register theirs with ``register_migration``."""


def register_migration(name: str, fn: Migration) -> None:
    if name not in {n for n, _ in MIGRATIONS}:
        MIGRATIONS.append((name, fn))
        MIGRATIONS.sort(key=lambda m: m[0])


def run_script(conn: sqlite3.Connection, script: str) -> None:
    """``executescript`` without its implicit COMMIT, so a migration stays one transaction."""
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                conn.execute(buf)
            buf = ""
    if buf.strip():
        conn.execute(buf)


class MigrationConnection:
    """What a migration gets: the connection, but an ``executescript`` that cannot end the
    transaction (sqlite3's own commits first), so a failed migration leaves no trace."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, params: tuple | dict = ()) -> sqlite3.Cursor:
        return self._conn.execute(sql, params)

    def executescript(self, script: str) -> None:
        run_script(self._conn, script)


_creating: dict[Path, tuple[threading.Event, threading.Thread]] = {}
"""Databases being created by ``create_soon``, by resolved path: set once done, and by
which thread."""


def create_soon(path: Path) -> None:
    """Create the database at ``path`` — not there yet: a home's first start — in a daemon
    thread, beside Textual's start-up: the file's creation and its switch to WAL wait on
    the disk (syncs) far longer than they use the GIL.  It applies the migrations registered
    by then (none at a start: the open, which imports their modules, applies them).  The
    open of the same path waits for it; whatever goes wrong is left to that open."""
    path = path.resolve()
    if path in _creating or path.exists():
        return
    done = threading.Event()

    def run() -> None:
        try:
            Database(path).close()
        except BaseException as e:  # noqa: BLE001 - the open says what is wrong
            if not isinstance(e, Exception):
                raise
        finally:
            done.set()

    thread = threading.Thread(target=run, name="db-create", daemon=True)
    _creating[path] = (done, thread)
    thread.start()


class Database:
    """One connection shared by the event loop thread; a lock guards use from worker threads."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.lock = threading.RLock()
        done, creator = _creating.get(self.path.resolve(), (None, None))
        if done is not None and creator is not threading.current_thread():
            done.wait(BUSY_TIMEOUT_MS / 1000)  # then open what it made (or fail here)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            # Private (docs/adr/0015-no-secret-on-disk.md): created 0600, and SQLite gives its
            # -wal and -shm files the database's mode; an older, looser file is tightened.
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
            with contextlib.suppress(OSError):
                os.chmod(self.path, 0o600)
            self.conn = sqlite3.connect(
                str(self.path),
                timeout=BUSY_TIMEOUT_MS / 1000,
                check_same_thread=False,
                isolation_level=None,
            )
            self.conn.row_factory = sqlite3.Row
            self.conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            self._quick_check()
            self._use_wal()
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            self.migrate()
        except (sqlite3.DatabaseError, CorruptDatabaseError, OSError) as e:
            if getattr(self, "conn", None) is not None:
                self.conn.close()  # opened, then the file proved unusable: do not leak it
            if isinstance(e, CorruptDatabaseError):
                raise
            if isinstance(e, sqlite3.DatabaseError) and is_corrupt(e):
                raise CorruptDatabaseError(corrupt_message(self.path, str(e))) from None
            why = e.strerror if isinstance(e, OSError) and e.strerror else e
            raise StorageError(f"{self.path}: cannot open database: {why}") from None

    corrupt: str = ""
    """Set once SQLite reported a damaged page: every later transaction is refused."""

    def _quick_check(self) -> None:
        quick_check(self.conn, self.path)

    def _use_wal(self) -> None:
        """Switch the file to WAL, waiting out other processes doing the same.  The switch
        takes an exclusive lock and SQLite answers SQLITE_BUSY at once instead of calling the
        busy handler, so ten first runs in a new folder would fail all but one; each retries
        until the timeout, and sees WAL already set once another process has set it."""
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        pause = 0.001
        while True:
            try:
                mode = self.conn.execute("PRAGMA journal_mode").fetchone()[0]
                if str(mode).lower() == "wal":
                    return
                self.conn.execute("PRAGMA journal_mode=WAL").fetchall()
                return
            except sqlite3.OperationalError as e:
                if (
                    e.sqlite_errorcode & 0xFF
                ) != sqlite3.SQLITE_BUSY or time.monotonic() > deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.05)

    def failure(self, e: sqlite3.Error) -> StorageError:
        """The error to raise for ``e``: a damaged page marks the database as refused."""
        if is_corrupt(e):
            self.corrupt = corrupt_message(self.path, str(e))
            return CorruptDatabaseError(self.corrupt)
        return StorageError(f"{self.path}: {e}")

    def migrate(self) -> None:
        """Apply registered migrations not yet applied; modules that register late call it again."""
        with self.transaction() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at REAL)"
            )
            done = {r[0] for r in db.execute("SELECT name FROM schema_migrations")}
            for name, fn in MIGRATIONS:
                if name not in done:
                    fn(MigrationConnection(db))
                    db.execute(
                        "INSERT INTO schema_migrations VALUES (?, strftime('%s','now'))", (name,)
                    )

    @property
    def schema_version(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT name FROM schema_migrations ORDER BY name")]

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` … ``COMMIT``; any exception rolls back and becomes StorageError."""
        with self.lock:
            if self.corrupt:
                raise CorruptDatabaseError(self.corrupt)
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as e:
                raise self.failure(e) from None
            try:
                yield self.conn
            except BaseException as e:
                with contextlib.suppress(sqlite3.Error):
                    self.conn.execute("ROLLBACK")
                if isinstance(e, sqlite3.Error):
                    raise self.failure(e) from None
                raise
            else:
                try:
                    self.conn.execute("COMMIT")
                except sqlite3.Error as e:
                    with contextlib.suppress(sqlite3.Error):
                        self.conn.execute("ROLLBACK")
                    raise self.failure(e) from None

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """One read transaction: the reads inside see the same committed state, whatever
        another process commits meanwhile (in WAL a deferred ``BEGIN`` holds its snapshot
        from its first read until ``COMMIT``).  Inside a transaction already: that one."""
        with self.lock:
            if self.conn.in_transaction:
                yield
                return
            try:
                self.conn.execute("BEGIN")
            except sqlite3.Error as e:
                raise self.failure(e) from None
            try:
                yield
            finally:
                with contextlib.suppress(sqlite3.Error):
                    self.conn.execute("COMMIT")

    def query(self, sql: str, params: tuple | dict = ()) -> list[sqlite3.Row]:
        with self.lock:
            try:
                return self.conn.execute(sql, params).fetchall()
            except sqlite3.Error as e:
                raise self.failure(e) from None

    def tuples(self, sql: str, params: tuple | dict = ()) -> list[tuple[Any, ...]]:
        """Like ``query`` but plain tuples: for many rows read by position (a long session's
        turns), where building ``sqlite3.Row`` objects is a third of the load."""
        with self.lock:
            try:
                cur = self.conn.cursor()
                cur.row_factory = None
                return cur.execute(sql, params).fetchall()
            except sqlite3.Error as e:
                raise self.failure(e) from None

    def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version``: changes when another connection (another process)
        commits, never for this connection's own commits; a cheap read, no table access.
        https://www.sqlite.org/pragma.html#pragma_data_version"""
        return int(self.query("PRAGMA data_version")[0][0])

    def close(self) -> None:
        with self.lock, contextlib.suppress(sqlite3.Error):
            self.conn.close()
