"""Reading a session's turns: all of them, or its last ones first and the older ones later,
and the counts the panes show over a history that is not read whole yet.

A resumed session is opened tail first so that the main screen's first frame does not
wait for a long history (10,000 turns take ~20 ms to read, 50,000 ~120 ms); the engine
reads the rest before any agent runs (``SessionStore.read_older``).  Turns are only ever
appended, or dropped from the end (``SessionStore.drop_turns``), so the turns before a
tail read earlier are still the session's first ``unread`` rows when they are read.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from milk_tui.model.session import ESCALATION, PRIMARY, HistoryCounts, Turn
from milk_tui.model.turn_history import OlderCounts
from milk_tui.storage.db import Database, MigrationConnection, register_migration
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
    first_id: int = 0
    """Row id of the first turn read (0: none): where the next older page ends."""


def read_turns(
    db: Database, session_id: str, *, last: int = 0, first: int = 0, before: int = 0
) -> TurnsRead:
    """The session's turns in order: all, or only its ``last`` ones (those before row id
    ``before`` when given), or its ``first`` ones."""
    first_id = 0
    if last:
        sql = (
            f"SELECT * FROM (SELECT id, {_COLUMNS} FROM turns WHERE session_id = ? "
            f"{'AND id < ? ' if before else ''}ORDER BY id DESC LIMIT ?) ORDER BY id"
        )
        params = (session_id, before, last) if before else (session_id, last)
        with_ids = db.tuples(sql, params)
        first_id = with_ids[0][0] if with_ids else before
        rows = [r[1:] for r in with_ids]
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
    return TurnsRead(turns, unreadable_calls, unreadable_files, first_id)


HANDED_OVER = (
    # ``model/session.handed_over`` over the stored turns: user turn ``e`` of the escalation
    # agent whose previous turn in its session is the primary's answer, and the one before
    # that the primary's user turn with the same text.  Only escalation user turns are
    # looked at, each by two seeks of the (session_id, id) index.
    f"e.role = 'user' AND e.agent = '{ESCALATION}' AND e.content = ("
    "SELECT u.content FROM turns a JOIN turns u ON u.id = ("
    "SELECT MAX(id) FROM turns WHERE session_id = a.session_id AND id < a.id) "
    "WHERE a.id = (SELECT MAX(id) FROM turns WHERE session_id = e.session_id AND id < e.id) "
    f"AND a.role = 'assistant' AND a.agent = '{PRIMARY}' "
    f"AND u.role = 'user' AND u.agent = '{PRIMARY}')"
)


def questions_of(session_id_sql: str) -> str:
    """SQL for the questions of the session whose id is ``session_id_sql`` (a column or a
    parameter): its user turns, a hand-off's two counted once (``Session.question_count``)."""
    return (
        f"((SELECT COUNT(*) FROM turns q WHERE q.session_id = {session_id_sql} "
        "AND q.role = 'user') - (SELECT COUNT(*) FROM turns e "
        f"WHERE e.session_id = {session_id_sql} AND {HANDED_OVER}))"
    )


def older_counts(db: Database, session_id: str, before: int) -> OlderCounts:
    """``OlderCounts`` over the session's turns before row id ``before``, by SQLite from the
    ``turns_kind`` index (no turn's text is read)."""
    row = db.tuples(
        "SELECT COALESCE(SUM(role = 'user'), 0), "
        f"COALESCE(SUM(role = 'assistant' AND agent = '{PRIMARY}'), 0), "
        f"COALESCE(SUM(role = 'assistant' AND agent = '{ESCALATION}'), 0), "
        f"COALESCE(SUM(agent = '{ESCALATION}'), 0) "
        "FROM turns INDEXED BY turns_kind WHERE session_id = ? AND id < ?",
        (session_id, before),
    )[0]

    def last_answer(agent: str) -> tuple[int, int]:
        """The row id and the index of the last answer of ``agent`` (0, -1: none)."""
        at = db.tuples(
            "SELECT MAX(id) FROM turns WHERE session_id = ? AND role = 'assistant' "
            "AND agent = ? AND id < ?",
            (session_id, agent, before),
        )[0][0]
        if at is None:
            return 0, -1
        index = db.tuples(
            "SELECT COUNT(*) FROM turns WHERE session_id = ? AND id < ?", (session_id, at)
        )[0][0]
        return int(at), int(index)

    user, primary, escalation, tagged = (int(v) for v in row)
    escalation_id, last_escalation = last_answer(ESCALATION)
    (since,) = db.tuples(
        "SELECT COUNT(*) FROM turns WHERE session_id = ? AND role = 'assistant' AND agent = ? "
        "AND id > ? AND id < ?",
        (session_id, PRIMARY, escalation_id, before),
    )[0]
    return OlderCounts(
        user, primary, escalation, tagged, last_answer(PRIMARY)[1], last_escalation, int(since)
    )


def count_turns(db: Database, session_id: str) -> int:
    return int(db.tuples("SELECT COUNT(*) FROM turns WHERE session_id = ?", (session_id,))[0][0])


def _m005_turn_kinds(db: MigrationConnection) -> None:
    """The turns of a session by role and agent: ``history_counts`` reads only this index
    (its counts are ranges of it, its latest turns seeks), not every turn's row."""
    db.executescript("CREATE INDEX turns_kind ON turns(session_id, role, agent, id);")


register_migration("005_turn_kinds", _m005_turn_kinds)


def history_counts(db: Database, session_id: str, need_set_at: int, records: int) -> HistoryCounts:
    """``Session.history_counts`` of the stored session of ``records`` turns, counted by
    SQLite: the same values for the same turns (tests/storage/test_history_tail.py holds
    them equal), from the ``turns_kind`` index (~1 ms for 10,000 turns) instead of every
    turn read into memory."""

    def one(sql: str, *params: object) -> Any:
        return db.tuples(sql, (session_id, *params))[0]

    # The need was set at the ``need_set_at``-th turn: its question counts the user turns
    # up to that one (all of them when it lies past the end).
    need_id = 0
    if need_set_at > 0:
        at = db.tuples(
            "SELECT id FROM turns WHERE session_id = ? ORDER BY id LIMIT 1 OFFSET ?",
            (session_id, need_set_at - 1),
        )
        need_id = at[0][0] if at else _AFTER_ALL
    exchanges, need_question = one(
        "SELECT COUNT(*), COALESCE(SUM(id <= ?2), 0) FROM turns "
        "WHERE session_id = ?1 AND role = 'user'",
        need_id,
    )
    repeats, repeats_to_need = one(
        f"SELECT COUNT(*), COALESCE(SUM(e.id <= ?2), 0) FROM turns e "
        f"WHERE e.session_id = ?1 AND {HANDED_OVER}",
        need_id,
    )
    agent, _ = one(
        "SELECT agent, MAX(id) FROM turns WHERE session_id = ? AND role = 'user' AND agent > ''"
    )
    (last_escalation,) = one(
        "SELECT MAX(id) FROM turns WHERE session_id = ? AND role = 'assistant' AND agent = ?",
        ESCALATION,
    )
    # Counted only once the escalation agent has had any turn, its reply or not
    # (``Session.escalation_ever_active``): then since its last reply, or from the start.
    local = 0
    if (
        last_escalation is not None
        or one(
            "SELECT EXISTS (SELECT 1 FROM turns WHERE session_id = ? AND agent = ?)", ESCALATION
        )[0]
    ):
        (local,) = one(
            "SELECT COUNT(*) FROM turns WHERE session_id = ? AND role = 'assistant' "
            "AND agent = ? AND id > ?",
            PRIMARY,
            last_escalation or 0,
        )
    context = db.tuples(
        "SELECT context_text FROM turns WHERE session_id = ? AND role = 'user' AND agent = ? "
        "AND context_text != '' ORDER BY id DESC LIMIT 1",
        (session_id, ESCALATION),
    )
    return HistoryCounts(
        records=records,
        exchanges=exchanges - repeats,
        need_question=need_question - repeats_to_need,
        last_user_agent=agent or "",
        local_turns_since_escalation=local,
        last_escalation_context=context[0][0] if context else "",
    )


_AFTER_ALL = 2**62
"""A row id past every turn's: the need lies past the end of the history."""
