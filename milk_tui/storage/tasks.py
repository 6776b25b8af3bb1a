"""Tasks in SQLite: one row each, a session's (``session_id``) or global (NULL).

Every change is one short ``BEGIN IMMEDIATE`` transaction, so milk-tui, the CLI and the
tasks MCP server (engine/tasks_mcp.py, a process of its own started by the Claude CLI) can
write the same database at once; WAL lets each read meanwhile.  A session's tasks go with
the session (``ON DELETE CASCADE``).
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import Sequence

from milk_tui.model.nonce import NONCE_ALPHABET
from milk_tui.model.task import ID_LENGTH, MAX_TEXT, MIN_PREFIX, Task, TaskStatus, status_of
from milk_tui.storage.db import Database, MigrationConnection, register_migration


def _m006_tasks(db: MigrationConnection) -> None:
    db.executescript(
        """
        CREATE TABLE tasks (
            id TEXT PRIMARY KEY,
            session_id TEXT REFERENCES sessions(id) ON DELETE CASCADE,
            text TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'open',
            origin TEXT NOT NULL DEFAULT '',
            ref TEXT NOT NULL DEFAULT '',
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE INDEX tasks_session ON tasks(session_id, created_at);
        """
    )


register_migration("006_tasks", _m006_tasks)

_COLUMNS = "id, session_id, text, status, origin, created_at, updated_at"


class TaskNotFound(ValueError):
    """An id or prefix that addresses no task, or more than one: the message is one line."""


def new_id() -> str:
    return "".join(secrets.choice(NONCE_ALPHABET) for _ in range(ID_LENGTH))


def clean_text(text: str) -> str:
    """One line, trimmed and bounded: a task is a plan line."""
    return " ".join(text.split())[:MAX_TEXT]


def _task(r: sqlite3.Row) -> Task:
    status = status_of(str(r["status"])) or "open"
    sid = r["session_id"] or ""
    return Task(r["id"], r["text"], status, "session" if sid else "global", sid,
                r["created_at"], r["updated_at"], r["origin"])  # fmt: skip


class TaskStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.migrate()  # the table exists before the first read, whoever opened the database

    def tasks_of(self, session_id: str | None, *, include_global: bool = True) -> list[Task]:
        """The session's tasks (oldest first), then the global ones; ``session_id`` None:
        the global ones only."""
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM tasks WHERE (session_id = ?) OR (? AND session_id IS NULL)"
            " ORDER BY session_id IS NULL, created_at, rowid",
            (session_id, include_global or session_id is None),
        )
        return [_task(r) for r in rows]

    def create(
        self, text: str, session_id: str | None, *, status: TaskStatus = "open", origin: str = ""
    ) -> Task:
        """A new task (``session_id`` None: global).  ``ValueError`` for empty text."""
        body = clean_text(text)
        if not body:
            raise ValueError("a task needs text")
        now = time.time()
        with self.db.transaction() as c:
            while True:
                tid = new_id()
                if not c.execute("SELECT 1 FROM tasks WHERE id = ?", (tid,)).fetchone():
                    break
            c.execute(
                f"INSERT INTO tasks ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (tid, session_id, body, status, origin, now, now),
            )
        return Task(tid, body, status, "session" if session_id else "global",
                    session_id or "", now, now, origin)  # fmt: skip

    def adopt(self, session_id: str, origin: str, ref: str, text: str, status: TaskStatus) -> None:
        """A task another list (Claude's ``TaskCreate``) made with its own id ``ref``: kept
        as the session's ``origin`` task; an older one holding that ``ref`` lets go of it
        (the other list numbers from 1 again in a new conversation)."""
        task = self.create(text, session_id, status=status, origin=origin)
        with self.db.transaction() as c:
            c.execute(
                "UPDATE tasks SET ref = '' WHERE session_id = ? AND origin = ? AND ref = ?",
                (session_id, origin, ref),
            )
            c.execute("UPDATE tasks SET ref = ? WHERE id = ?", (ref, task.id))

    def update_by_ref(
        self,
        session_id: str,
        origin: str,
        ref: str,
        *,
        status: TaskStatus | None = None,
        text: str | None = None,
        delete: bool = False,
    ) -> bool:
        """Change (or delete) the session's ``origin`` task the other list calls ``ref``;
        False when there is none."""
        body = clean_text(text) if text else None
        with self.db.transaction() as c:
            where = "WHERE session_id = ? AND origin = ? AND ref = ?"
            key = (session_id, origin, ref)
            if delete:
                return c.execute(f"DELETE FROM tasks {where}", key).rowcount > 0
            cur = c.execute(
                "UPDATE tasks SET status = coalesce(?, status), text = coalesce(?, text), "
                f"updated_at = ? {where}",
                (status, body, time.time(), *key),
            )
            return cur.rowcount > 0

    def resolve(self, ref: str, session_id: str | None) -> Task:
        """The task ``ref`` (an id or a unique prefix of 4+ characters) names among the
        session's and the global tasks; ``TaskNotFound`` with one line otherwise."""
        key = ref.strip().lower()
        if len(key) < MIN_PREFIX:
            raise TaskNotFound(
                f"task id {ref!r} is too short: give at least {MIN_PREFIX} characters"
            )
        hits = [t for t in self.tasks_of(session_id) if t.id.startswith(key)]
        if not hits:
            raise TaskNotFound(f"no task {ref!r} in this session or the global list")
        exact = [t for t in hits if t.id == key]
        if len(hits) > 1 and not exact:
            ids = ", ".join(t.id for t in hits[:5])
            raise TaskNotFound(f"task id {ref!r} is ambiguous: {ids}")
        return exact[0] if exact else hits[0]

    def update(
        self,
        ref: str,
        session_id: str | None,
        *,
        status: TaskStatus | None = None,
        text: str | None = None,
    ) -> Task:
        """Change the task ``ref`` names; returns it as stored now."""
        t = self.resolve(ref, session_id)
        body = clean_text(text) if text is not None else t.text
        if not body:
            raise ValueError("a task needs text")
        now = time.time()
        with self.db.transaction() as c:
            c.execute(
                "UPDATE tasks SET text = ?, status = ?, updated_at = ? WHERE id = ?",
                (body, status or t.status, now, t.id),
            )
        return Task(t.id, body, status or t.status, t.scope, t.session_id, t.created_at, now,
                    t.origin)  # fmt: skip

    def replace_origin(
        self, session_id: str, origin: str, items: Sequence[tuple[str, TaskStatus]]
    ) -> None:
        """Make the session's ``origin`` tasks exactly ``items`` (text, status), in one
        transaction: a whole-list update such as Claude's ``TodoWrite``.  A task whose text
        stays keeps its id; one no longer listed is removed."""
        now = time.time()
        with self.db.transaction() as c:
            old = {
                r[1]: r[0]
                for r in c.execute(
                    "SELECT id, text FROM tasks WHERE session_id = ? AND origin = ?",
                    (session_id, origin),
                )
            }
            keep: set[str] = set()
            for i, (raw, status) in enumerate(items):
                text = clean_text(raw)
                if not text or text in keep:
                    continue
                keep.add(text)
                if text in old:
                    c.execute(
                        "UPDATE tasks SET status = ?, updated_at = ? WHERE id = ? AND status != ?",
                        (status, now, old[text], status),
                    )
                    continue
                tid = new_id()
                c.execute(
                    f"INSERT INTO tasks ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (tid, session_id, text, status, origin, now + i * 1e-6, now),
                )
            for text, tid in old.items():
                if text not in keep:
                    c.execute("DELETE FROM tasks WHERE id = ?", (tid,))
