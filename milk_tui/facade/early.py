"""What a start begins before it needs it: the TUI before its first frame, beside Textual's own
start-up; the command line before a command's imports.

Only work that leaves the GIL free most of the time belongs here: Textual's start-up is
Python on the main thread, so a Python-heavy task would only delay the first frame.
"""

from __future__ import annotations


def check_database_soon(*, create: bool = False) -> None:
    """Start the database's integrity check (storage/integrity.py ``check_soon``): SQLite
    reads every page without the GIL, and the open that follows the first frame collects the
    answer instead of paying for the read.  ``create`` (the TUI, which opens it next): a
    database not there yet is created instead (storage/db.py ``create_soon``): the file in
    WAL mode, its disk waits beside Textual's imports.  Its tables are the open's to make:
    the modules that register them are Python to import, which would only contend with
    Textual's for the GIL (~10 ms more CPU to a home's first frame, docs/performance.md)."""
    from milk_tui.config.paths import database_file
    from milk_tui.storage.integrity import check_soon

    try:
        path = database_file()
        if path.exists():
            check_soon(path)
        elif create:
            from milk_tui.storage.db import create_soon

            create_soon(path)
    except Exception:  # noqa: BLE001 - a data dir that is not usable is the open's to report
        return
