"""Sessions, append-only turns, token rows and input history in SQLite.

A turn costs one INSERT plus one UPDATE of the session row whatever the history length;
``commit_turns`` wraps them in one transaction with the token deltas (and whatever the
caller adds in the same transaction: the turn's facts) so that a kill at any instant
leaves either the whole turn or none of it.  The row's ``version`` lets a commit notice
another process's commit and merge with it (storage/session_rows.py).
"""

from __future__ import annotations

import builtins
import json
import sqlite3
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from milk_tui.model.session import HistoryCounts, Session, TokenUsage, Turn
from milk_tui.model.turn_history import History

# A committed turn writes its usage rows (storage/usage_log.py) in the same transaction:
# that table's migration is registered before any store migrates the database.
from milk_tui.storage import usage_log as _usage_log  # noqa: F401  # registers migration 004
from milk_tui.storage.db import Database, MigrationConnection, StorageError, register_migration
from milk_tui.storage.history_read import (
    Counted,
    TurnsRead,
    held_history,
    history_counts,
    questions_of,
    read_turns,
)
from milk_tui.storage.session_lookup import lookup
from milk_tui.storage.session_rows import (
    attachments_json,
    merge_into,
    meta_json,
    parse_meta,
    parse_state,
    row_fields,
    stored_fields,
)
from milk_tui.storage.turn_counts import KEPT_TURNS, kept, older_counts

TOKEN_COLUMNS = ("model", "role", "prompt", "completion", "cache_read", "cache_creation",
                 "cost_usd")  # fmt: skip
"""Columns of the ``tokens`` table, named like the ``TokenUsage`` fields they hold."""
_ANY_TURN = "SELECT 1 FROM turns t WHERE t.session_id = s.id"
_SUMMARY_COLUMNS = ("id", "name", "cwd", "created_at", "last_used", "state")
INPUT_HISTORY_KEEP = 500
"""Only the last 500 input lines are kept per session: enough to recall, bounded on disk."""


@dataclass
class SessionSummary:
    id: str
    name: str
    cwd: str
    created_at: float
    last_used: float
    state: str
    turns: int
    """Stored records: a question and its answer are two, a hand-off four."""
    current_need: str
    questions: int = 0
    """Prompts the user sent (``Session.question_count``): what the lists show."""


def _m002_session_version(db: MigrationConnection) -> None:
    """Bumped by every commit: a commit that finds another number merges (session_rows.py)."""
    db.executescript("ALTER TABLE sessions ADD COLUMN version INTEGER NOT NULL DEFAULT 0;")


register_migration("002_session_version", _m002_session_version)


def _m003_attachments(db: MigrationConnection) -> None:
    """A user turn's files as JSON (name, kind, mime, size, sha256, path; never the bytes:
    docs/adr/0027-attachments.md); "" for a turn without any."""
    db.executescript("ALTER TABLE turns ADD COLUMN attachments TEXT NOT NULL DEFAULT '';")


register_migration("003_attachments", _m003_attachments)


INSERT_TURN = (
    "INSERT INTO turns (session_id, role, agent, agent_name, content, thinking, "
    "tool_calls, context_text, timestamp, attachments) VALUES (?,?,?,?,?,?,?,?,?,?)"
)
"""Takes ``(session_id, *_turn_row(turn))``: the one statement that writes a turn."""


def _turn_row(t: Turn) -> tuple:
    calls = json.dumps([c.__dict__ for c in t.tool_calls]) if t.tool_calls else ""
    return (
        t.role,
        t.agent,
        t.agent_name,
        t.content,
        t.thinking,
        calls,
        t.context_text,
        t.timestamp,
        attachments_json(t.attachments),
    )


def token_row(u: TokenUsage) -> tuple:
    return tuple(getattr(u, c) for c in TOKEN_COLUMNS)


class SessionStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.migrate()  # our schema registers at import, possibly after the db was opened
        self.warnings: builtins.list[str] = []
        """Sessions loaded with an unreadable field dropped; ``take_warnings`` drains it."""

    def take_warnings(self) -> builtins.list[str]:
        out, self.warnings = self.warnings, []
        return out

    # ----- create / load --------------------------------------------------------------

    def create(self, cwd: str, name: str = "") -> Session:
        with self.db.transaction() as db:
            s = self._insert(db, cwd, name)
        return s

    def _insert(self, db: sqlite3.Connection, cwd: str, name: str) -> Session:
        now = time.time()
        s = Session(id=str(uuid.uuid4()), cwd=cwd, name=name, created_at=now, last_used=now)
        db.execute(
            "INSERT INTO sessions (id, name, cwd, created_at, last_used, state, meta) VALUES (?,?,?,?,?,?,?)",
            (s.id, s.name, s.cwd, s.created_at, s.last_used, s.state.value, meta_json(s)),
        )
        s.stored = {**row_fields(s), "version": 0}
        return s

    def load(self, session_id: str, *, tail: int = 0) -> Session | None:
        """The session with its turns and tokens; a field that cannot be read is dropped and
        named in ``warnings`` (the rest of the session loads).  ``tail``: only its last
        ``tail`` turns (``Session.unread`` counts the others; ``read_older`` reads them)."""
        rows = self.db.query("SELECT * FROM sessions WHERE id = ?", (session_id,))
        if not rows:
            return None
        r = rows[0]
        s = Session(
            id=r["id"],
            cwd=r["cwd"],
            name=r["name"],
            created_at=r["created_at"],
            last_used=r["last_used"],
            state=parse_state(r["state"]),
        )
        meta, dropped = parse_meta(r["meta"])
        for f, v in meta.items():
            setattr(s, f, v)
        s.stored = {**row_fields(s), "version": r["version"]}
        with self.db.snapshot():  # the tail and the kept counts of the same turns
            read = read_turns(self.db, session_id, last=tail)
            unloaded, known = 0, dict[str, int]()
            if tail and len(read.turns) == tail:  # more than the tail: the turns before it
                unloaded, known = older_counts(kept(self.db, session_id), read.turns)

        def note(older: TurnsRead) -> None:  # an unreadable field of older turns read later
            self._note_unreadable(s, older, [])

        s.history = held_history(self.db, session_id, read, unloaded, note, known)
        self._note_unreadable(s, read, ["its state (meta)"] if dropped else [])
        for tr in self.db.query("SELECT * FROM tokens WHERE session_id = ?", (session_id,)):
            s.tokens[(tr["model"], tr["role"])] = TokenUsage(**{c: tr[c] for c in TOKEN_COLUMNS})
        return s

    def read_older(self, s: Session) -> None:
        """Read the turns a tail-first ``load`` left out (``s.unread``): ``s`` is whole after."""
        if isinstance(s.history, History):
            s.history.load_all()

    def history_counts(self, s: Session) -> HistoryCounts:
        """``s.history_counts()`` for a session whose older turns are not read yet; the
        user turns among those counted once for the session (``OlderCounts``)."""
        older = s.history.older_counts() if isinstance(s.history, History) else None
        known = None
        if older is not None and isinstance(s.history, History):
            known = Counted(older.key, s.history.base, older.get("user"))
        held = s.history[s.unread :]  # the turns in memory: no older page is read for them
        return history_counts(self.db, s.id, s.current_need_set_at, s.records, known, held)

    def _note_unreadable(self, s: Session, read: TurnsRead, bad: builtins.list[str]) -> None:
        if read.unreadable_calls:
            bad.append(f"the tool calls of {read.unreadable_calls} turn(s)")
        if read.unreadable_files:
            bad.append(f"the attachments of {read.unreadable_files} turn(s)")
        warning = (
            f"session {s.id}{f' ({s.name})' if s.name else ''}: could not read "
            f"{' and '.join(bad)}; loaded without them"
        )
        if bad and warning not in self.warnings:
            self.warnings.append(warning)

    def find(
        self, cwd: str, name: str = "", *, any_folder: bool = False, full_id_anywhere: bool = False
    ) -> str | None:
        """The session ``name`` addresses (storage/session_lookup.py), or the folder's most
        recent when ``name`` is "".  Raises ``SessionLookupError`` for an ambiguous prefix."""
        return lookup(self.db.query, cwd, name, any_folder, full_id_anywhere)

    def resume(
        self,
        cwd: str,
        name: str = "",
        new: bool = False,
        *,
        any_folder: bool = False,
        tail: int = 0,
    ) -> Session:
        """The most recent session for ``cwd`` (or the one ``name`` addresses), else a new
        one.  Looking and creating are one write transaction, so processes started together
        in a new folder all end up in the one session the first of them created.  ``tail``: as
        ``load``'s."""
        with self.db.transaction() as db:
            sid = None
            if not new:
                sid = lookup(lambda q, p: db.execute(q, p).fetchall(), cwd, name, any_folder)
            if sid is None:
                return self._insert(db, cwd, name)
        s = self.load(sid, tail=tail)
        return s if s is not None else self.create(cwd, name)  # deleted in between

    # ----- writes ---------------------------------------------------------------------

    def commit_turns(
        self,
        s: Session,
        new_turns: list[Turn],
        token_deltas: list[TokenUsage] | None = None,
        also: Callable[[sqlite3.Connection], None] | None = None,
    ) -> None:
        """Persist turns already appended to ``s.history`` plus the session's scalar state,
        merged with any commit another process made since this one last read the row;
        ``also`` writes more in the same transaction (the turn's facts)."""
        if new_turns:
            s.last_used = new_turns[-1].timestamp
        with self.db.transaction() as db:
            version = self._merge_stored(db, s)
            db.executemany(
                INSERT_TURN,
                [(s.id, *_turn_row(t)) for t in new_turns],
            )
            for u in token_deltas or []:
                db.execute(
                    "INSERT INTO tokens (session_id, model, role, prompt, completion, cache_read, "
                    "cache_creation, cost_usd) VALUES (?,?,?,?,?,?,?,?) "
                    "ON CONFLICT(session_id, model, role) DO UPDATE SET "
                    "prompt = prompt + excluded.prompt, completion = completion + excluded.completion, "
                    "cache_read = cache_read + excluded.cache_read, "
                    "cache_creation = cache_creation + excluded.cache_creation, "
                    "cost_usd = cost_usd + excluded.cost_usd",
                    (s.id, *token_row(u)),
                )
            cur = db.execute(
                "UPDATE sessions SET last_used = max(last_used, ?), state = ?, meta = ?, name = ?, "
                "version = version + 1 WHERE id = ? AND version = ?",
                (s.last_used, s.state.value, meta_json(s), s.name, s.id, version),
            )
            if cur.rowcount != 1:  # cannot happen while BEGIN IMMEDIATE holds the write lock
                raise StorageError(f"session {s.id} changed during the commit")
            if also is not None:
                also(db)
        s.stored = {**row_fields(s), "version": version + 1}

    def drop_turns(self, s: Session, dropped: builtins.list[Turn]) -> None:
        """Delete the session's last stored turns — ``dropped``, already removed from
        ``s.history`` — and save its state, in one transaction.  Refused (StorageError) when
        the stored tail is not those turns (another process committed meanwhile)."""
        with self.db.transaction() as db:
            version = self._merge_stored(db, s)
            rows = db.execute(
                "SELECT id, role, content FROM turns WHERE session_id = ? ORDER BY id DESC LIMIT ?",
                (s.id, len(dropped)),
            ).fetchall()
            if [(r["role"], r["content"]) for r in reversed(rows)] != [
                (t.role, t.content) for t in dropped
            ]:
                raise StorageError("the session's last turns changed in another process")
            db.executemany("DELETE FROM turns WHERE id = ?", [(r["id"],) for r in rows])
            db.execute(
                "UPDATE sessions SET state = ?, meta = ?, version = version + 1 WHERE id = ?",
                (s.state.value, meta_json(s), s.id),
            )
        s.stored = {**row_fields(s), "version": version + 1}

    def _merge_stored(self, db: sqlite3.Connection, s: Session) -> int:
        """The row's version; when another process committed since ``s.stored`` was taken,
        its changes are merged into ``s`` first (storage/session_rows.py)."""
        r = db.execute(
            "SELECT version, name, state, meta FROM sessions WHERE id = ?", (s.id,)
        ).fetchone()
        if r is None:
            raise StorageError(f"session {s.id} no longer exists (deleted by another process?)")
        if s.stored.get("version") != r["version"]:
            merge_into(s, stored_fields(r["name"], r["state"], parse_meta(r["meta"])[0]))
        return int(r["version"])

    def version(self, session_id: str) -> int | None:
        """The session row's version, which every commit to the session moves (turns, state,
        name); None when the session is gone."""
        rows = self.db.query("SELECT version FROM sessions WHERE id = ?", (session_id,))
        return int(rows[0]["version"]) if rows else None

    def save_meta(self, s: Session) -> None:
        self.commit_turns(s, [])

    def touch(self, session_id: str) -> None:
        """The session was opened: it is the folder's most recent from now (what ``usage``
        and a plain start take), though no turn was added.  The version stays: nothing a
        concurrent commit merges changed."""
        with self.db.transaction() as db:
            db.execute(
                "UPDATE sessions SET last_used = max(last_used, ?) WHERE id = ?",
                (time.time(), session_id),
            )

    def rename(self, session_id: str, name: str) -> None:
        with self.db.transaction() as db:
            db.execute(
                "UPDATE sessions SET name = ?, version = version + 1 WHERE id = ?",
                (name, session_id),
            )

    def delete(self, session_id: str) -> None:
        with self.db.transaction() as db:
            db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    # ----- listing --------------------------------------------------------------------

    def list(
        self, cwd: str | None = None, limit: int = 200, keep: str = ""
    ) -> list[SessionSummary]:
        """Sessions of ``cwd`` (every folder when None), most recently used first.  A session
        with no turn and no name is not listed (a start that asked nothing, ``--new`` left
        at once) unless it is ``keep`` (the one open in the TUI)."""
        cond = f"(s.name != '' OR s.id = ? OR EXISTS ({_ANY_TURN}))"
        where, params = (
            (f"WHERE s.cwd = ? AND {cond}", (cwd, keep, limit))
            if cwd
            else (f"WHERE {cond}", (keep, limit))
        )
        rows = self.db.query(
            f"SELECT s.*, {KEPT_TURNS.format(sid='s.id')} AS n, "
            f"{questions_of('s.id')} AS questions "
            f"FROM sessions s {where} ORDER BY s.last_used DESC LIMIT ?",
            params,
        )
        return [
            SessionSummary(
                **{c: r[c] for c in _SUMMARY_COLUMNS},
                turns=r["n"],
                questions=r["questions"],
                current_need=parse_meta(r["meta"])[0].get("current_need", ""),
            )
            for r in rows
        ]

    # ----- input history (per session and global) ----------------------------------------

    def add_input(self, text: str, session_id: str) -> None:
        if not text.strip():
            return
        last = self.db.query(
            "SELECT text FROM input_history WHERE session_id = ? ORDER BY id DESC LIMIT 1",
            (session_id,),
        )
        if last and last[0][0] == text:
            return
        with self.db.transaction() as db:
            db.execute(
                "INSERT INTO input_history (session_id, text, ts) VALUES (?,?,?)",
                (session_id, text, time.time()),
            )
            # Keep the last INPUT_HISTORY_KEEP lines per session (indexed range delete).
            db.execute(
                "DELETE FROM input_history WHERE session_id = ? AND id <= ("
                "SELECT id FROM input_history WHERE session_id = ? ORDER BY id DESC "
                "LIMIT 1 OFFSET ?)",
                (session_id, session_id, INPUT_HISTORY_KEEP),
            )

    def inputs(
        self, session_id: str | None = None, limit: int = INPUT_HISTORY_KEEP
    ) -> builtins.list[str]:
        """Oldest first; ``session_id=None`` gives the global history across sessions."""
        if session_id is None:
            rows = self.db.query(
                "SELECT text FROM input_history ORDER BY id DESC LIMIT ?", (limit,)
            )
        else:
            rows = self.db.query(
                "SELECT text FROM input_history WHERE session_id = ? ORDER BY id DESC LIMIT ?",
                (session_id, limit),
            )
        return [r[0] for r in reversed(rows)]
