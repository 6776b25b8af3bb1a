"""Reading a session's turns: all of them, or its last ones first and the older ones later,
and the counts the panes show over a history that is not read whole yet.

A resumed session is opened tail first so that the main screen's first frame does not
wait for a long history (10,000 turns take ~20 ms to read, 50,000 ~120 ms); the engine
reads the rest before any agent runs (``SessionStore.read_older``).  Turns are only ever
appended, or dropped from the end (``SessionStore.drop_turns``), so the turns before a
tail read earlier are still the session's first ``unread`` rows when they are read.
"""

from __future__ import annotations

from typing import NamedTuple

from milk_tui.model.session import ESCALATION, PRIMARY, HistoryCounts, Turn
from milk_tui.storage.db import Database
from milk_tui.storage.session_rows import parse_attachments, parse_tool_calls

_COLUMNS = (
    "role, agent, agent_name, content, thinking, tool_calls, context_text, timestamp, attachments"
)


class TurnsRead(NamedTuple):
    turns: list[Turn]
    unreadable_calls: int
    """Turns whose stored tool calls could not be parsed (loaded without them)."""
    unreadable_files: int
    """Turns whose stored attachments could not be parsed (loaded without them)."""


def read_turns(db: Database, session_id: str, *, last: int = 0, first: int = 0) -> TurnsRead:
    """The session's turns in order: all, or only its ``last`` ones, or its ``first`` ones."""
    if last:
        sql = (
            f"SELECT * FROM (SELECT id, {_COLUMNS} FROM turns WHERE session_id = ? "
            "ORDER BY id DESC LIMIT ?) ORDER BY id"
        )
        rows = [r[1:] for r in db.tuples(sql, (session_id, last))]
    elif first:
        sql = f"SELECT {_COLUMNS} FROM turns WHERE session_id = ? ORDER BY id LIMIT ?"
        rows = db.tuples(sql, (session_id, first))
    else:
        sql = f"SELECT {_COLUMNS} FROM turns WHERE session_id = ? ORDER BY id"
        rows = db.tuples(sql, (session_id,))
    turns: list[Turn] = []
    unreadable_calls = unreadable_files = 0
    for role, agent, agent_name, content, thinking, calls, ctx, ts, files in rows:
        t = Turn(role, content, agent, agent_name, thinking, timestamp=ts, context_text=ctx)
        if calls:
            parsed = parse_tool_calls(calls)
            unreadable_calls += parsed is None
            t.tool_calls = parsed or []
        if files:
            infos = parse_attachments(files)
            unreadable_files += infos is None
            t.attachments = infos or []
        turns.append(t)
    return TurnsRead(turns, unreadable_calls, unreadable_files)


def count_turns(db: Database, session_id: str) -> int:
    return int(db.tuples("SELECT COUNT(*) FROM turns WHERE session_id = ?", (session_id,))[0][0])


_COUNTS = """
WITH t AS (SELECT id, role, agent, context_text FROM turns WHERE session_id = :sid)
SELECT
  (SELECT COUNT(*) FROM t),
  (SELECT COUNT(*) FROM t WHERE role = 'user'),
  (SELECT COUNT(*) FROM (SELECT role FROM t ORDER BY id LIMIT :need_at) WHERE role = 'user'),
  (SELECT agent FROM t WHERE role = 'user' AND agent != '' ORDER BY id DESC LIMIT 1),
  CASE WHEN EXISTS (SELECT 1 FROM t WHERE agent = :esc) THEN (
    SELECT COUNT(*) FROM t WHERE role = 'assistant' AND agent = :prim AND id > COALESCE(
      (SELECT MAX(id) FROM t WHERE role = 'assistant' AND agent = :esc), 0)
  ) ELSE 0 END,
  (SELECT context_text FROM t WHERE role = 'user' AND agent = :esc AND context_text != ''
   ORDER BY id DESC LIMIT 1)
"""


def history_counts(db: Database, session_id: str, need_set_at: int) -> HistoryCounts:
    """``Session.history_counts`` of the stored session, counted by SQLite: the same values
    for the same turns (tests/storage/test_history_tail.py holds them equal), without
    reading every turn into memory."""
    params = {"sid": session_id, "need_at": max(0, need_set_at), "esc": ESCALATION,
              "prim": PRIMARY}  # fmt: skip
    records, exchanges, need_question, agent, local, context = db.tuples(_COUNTS, params)[0]
    return HistoryCounts(
        records=records,
        exchanges=exchanges,
        need_question=need_question,
        last_user_agent=agent or "",
        local_turns_since_escalation=local,
        last_escalation_context=context or "",
    )
