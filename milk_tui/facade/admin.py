"""The data without agents, for the CLI's admin subcommands (``sessions``, ``memory``,
``import-go``): sessions and facts over the database, nothing else opened."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from milk_tui.config.paths import database_file, permissions_dir
from milk_tui.engine.bus import EventBus
from milk_tui.facade.facts import Facts
from milk_tui.facade.sessions import SessionCatalog
from milk_tui.facade.tasks import Tasks
from milk_tui.facade.usage import UsageReport
from milk_tui.memory.import_go import GoImportError, ImportReport, Progress, import_go
from milk_tui.memory.service import MemoryService
from milk_tui.memory.store import PerceptStore
from milk_tui.storage.db import Database
from milk_tui.storage.permission_grants import GrantStore
from milk_tui.storage.sessions import SessionStore
from milk_tui.storage.tasks import TaskStore

__all__ = ["Admin", "GoImportError", "ImportReport", "open_admin"]


class Admin:
    def __init__(self, db: Database) -> None:
        self._db = db
        self.sessions = SessionCatalog(SessionStore(db))
        self.facts = Facts(MemoryService(PerceptStore(db), EventBus()))

    def tasks(self, session_id: str) -> Tasks:
        """A session's task list ("": the global one only)."""
        return Tasks(TaskStore(self._db), session_id)

    def usage(self, cwd: str, session_id: str = "") -> UsageReport:
        return UsageReport(self._db, cwd, session_id)

    def import_go(self, root: Path, progress: Progress | None = None) -> ImportReport:
        """Import a Go milk folder's sessions and memory; raises ``GoImportError``.
        ``progress`` is told (step, done, total) as the import goes."""
        if progress is None:
            return import_go(self._db, root, GrantStore(permissions_dir()))
        return import_go(self._db, root, GrantStore(permissions_dir()), progress)


@contextmanager
def open_admin() -> Iterator[Admin]:
    """The user's database, closed on exit.  Raises ``StorageError``."""
    db = Database(database_file())
    try:
        yield Admin(db)
    finally:
        db.close()
