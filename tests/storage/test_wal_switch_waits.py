"""Opening a new database while another process holds a lock on it waits for the lock.

SQLite's switch to WAL answers SQLITE_BUSY at once instead of calling the busy handler, so
without a retry the second of two first runs in a new folder failed with "database is
locked" (tests/storage/test_parallel_first_run.py met it about one run in a hundred)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from milk_tui.storage.db import Database


def test_open_waits_for_another_connection_to_release_its_lock(tmp_path: Path) -> None:
    path = tmp_path / "milk.db"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("CREATE TABLE held (x)")  # still rollback-journal mode, as a new file is
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO held VALUES (1)")
    release = threading.Timer(0.3, lambda: other.execute("COMMIT"))
    release.start()
    try:
        db = Database(path)
    finally:
        release.join()
        other.close()
    try:
        assert db.query("PRAGMA journal_mode")[0][0] == "wal"
        assert db.query("SELECT x FROM held")[0][0] == 1
    finally:
        db.close()
