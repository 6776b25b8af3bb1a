"""Sessions, append-only turns, token rows and input history in SQLite.

A turn costs one INSERT plus one UPDATE of the session row whatever the history length;
``commit_turns`` wraps them in one transaction with the token deltas so that a kill at
any instant leaves either the whole turn or none of it.
"""

from __future__ import annotations

import builtins
import json
import time
import uuid
from dataclasses import dataclass

from milk_tui.model.session import Session, State, TokenUsage, ToolCallRecord, Turn
from milk_tui.storage.db import Database

_META_FIELDS = (
    "current_need", "current_need_set_at", "need_producer", "escalation_session_id",
    "escalation_brief", "last_local_summary", "last_escalation_summary", "escalation_nonce",
    "primary_nonce", "memory_instruction_injected_at",
)  # fmt: skip
TOKEN_COLUMNS = ("model", "role", "prompt", "completion", "cache_read", "cache_creation",
                 "cost_usd")  # fmt: skip
"""Columns of the ``tokens`` table, named like the ``TokenUsage`` fields they hold."""
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
    current_need: str


def _meta(s: Session) -> str:
    return json.dumps({f: getattr(s, f) for f in _META_FIELDS})


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
    )


def token_row(u: TokenUsage) -> tuple:
    return tuple(getattr(u, c) for c in TOKEN_COLUMNS)


class SessionStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # ----- create / load --------------------------------------------------------------

    def create(self, cwd: str, name: str = "") -> Session:
        now = time.time()
        s = Session(id=str(uuid.uuid4()), cwd=cwd, name=name, created_at=now, last_used=now)
        with self.db.transaction() as db:
            db.execute(
                "INSERT INTO sessions (id, name, cwd, created_at, last_used, state, meta) VALUES (?,?,?,?,?,?,?)",
                (s.id, s.name, s.cwd, s.created_at, s.last_used, s.state.value, _meta(s)),
            )
        return s

    def load(self, session_id: str) -> Session | None:
        rows = self.db.query("SELECT * FROM sessions WHERE id = ?", (session_id,))
        if not rows:
            return None
        r = rows[0]
        try:
            state = State(r["state"])
        except ValueError:
            state = State.ROUTING
        s = Session(
            id=r["id"],
            cwd=r["cwd"],
            name=r["name"],
            created_at=r["created_at"],
            last_used=r["last_used"],
            state=state,
        )
        meta = json.loads(r["meta"] or "{}")
        for f in _META_FIELDS:
            if f in meta:
                setattr(s, f, meta[f])
        cur = self.db.query(
            "SELECT role, agent, agent_name, content, thinking, tool_calls, context_text, timestamp "
            "FROM turns WHERE session_id = ? ORDER BY id",
            (session_id,),
        )
        hist = s.history
        for role, agent, agent_name, content, thinking, calls, ctx, ts in cur:
            t = Turn(role, content, agent, agent_name, thinking, timestamp=ts, context_text=ctx)
            if calls:
                t.tool_calls = [ToolCallRecord(**c) for c in json.loads(calls)]
            hist.append(t)
        for tr in self.db.query("SELECT * FROM tokens WHERE session_id = ?", (session_id,)):
            s.tokens[(tr["model"], tr["role"])] = TokenUsage(**{c: tr[c] for c in TOKEN_COLUMNS})
        return s

    def find(self, cwd: str, name: str = "") -> str | None:
        if name:
            rows = self.db.query(
                "SELECT id FROM sessions WHERE cwd = ? AND name = ? ORDER BY last_used DESC LIMIT 1",
                (cwd, name),
            )
            if not rows:
                rows = self.db.query(
                    "SELECT id FROM sessions WHERE id = ? OR id LIKE ?", (name, name + "%")
                )
        else:
            rows = self.db.query(
                "SELECT id FROM sessions WHERE cwd = ? ORDER BY last_used DESC LIMIT 1", (cwd,)
            )
        return rows[0][0] if rows else None

    def resume(self, cwd: str, name: str = "", new: bool = False) -> Session:
        """The most recent session for ``cwd`` (or the one named), else a new one."""
        if not new:
            sid = self.find(cwd, name)
            if sid:
                s = self.load(sid)
                if s is not None:
                    return s
        return self.create(cwd, name)

    # ----- writes ---------------------------------------------------------------------

    def commit_turns(
        self, s: Session, new_turns: list[Turn], token_deltas: list[TokenUsage] | None = None
    ) -> None:
        """Persist turns already appended to ``s.history`` plus the session's scalar state."""
        if new_turns:
            s.last_used = new_turns[-1].timestamp
        with self.db.transaction() as db:
            db.executemany(
                "INSERT INTO turns (session_id, role, agent, agent_name, content, thinking, "
                "tool_calls, context_text, timestamp) VALUES (?,?,?,?,?,?,?,?,?)",
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
            db.execute(
                "UPDATE sessions SET last_used = ?, state = ?, meta = ?, name = ? WHERE id = ?",
                (s.last_used, s.state.value, _meta(s), s.name, s.id),
            )

    def save_meta(self, s: Session) -> None:
        self.commit_turns(s, [])

    def rename(self, session_id: str, name: str) -> None:
        with self.db.transaction() as db:
            db.execute("UPDATE sessions SET name = ? WHERE id = ?", (name, session_id))

    def delete(self, session_id: str) -> None:
        with self.db.transaction() as db:
            db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    # ----- listing --------------------------------------------------------------------

    def list(self, cwd: str | None = None, limit: int = 200) -> list[SessionSummary]:
        where, params = ("WHERE s.cwd = ?", (cwd, limit)) if cwd else ("", (limit,))
        rows = self.db.query(
            "SELECT s.*, (SELECT COUNT(*) FROM turns t WHERE t.session_id = s.id) AS n "
            f"FROM sessions s {where} ORDER BY s.last_used DESC LIMIT ?",
            params,
        )
        return [
            SessionSummary(
                **{c: r[c] for c in _SUMMARY_COLUMNS},
                turns=r["n"],
                current_need=json.loads(r["meta"] or "{}").get("current_need", ""),
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
