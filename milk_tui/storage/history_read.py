"""Reading a session's turns: all of them, or its last ones first and the older ones a page
at a time when a reader reaches them (model/turn_history.py), and the counts over a history
that is not read whole: the panes' (``history_counts``) and a turn's (``older_count``).

A resumed session holds only its newest turns (engine/open_store.py ``HISTORY_TAIL``): a
100,000-turn session takes ~0.35 s to read whole, while a turn's context and the first
frame need only its tail.  Turns are only ever appended, or dropped from the end
(``SessionStore.drop_turns``), so the turns before a tail read earlier are still the rows
before its first row id when they are read.  Every count here is a seek or a range of an
index of the session's turns (tests/storage/test_history_tail.py checks the plans).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from milk_tui.model.session import ESCALATION, PRIMARY, HistoryCounts, Turn
from milk_tui.model.turn_history import History, OlderCounts
from milk_tui.storage.db import Database, MigrationConnection, register_migration
from milk_tui.storage.session_rows import parse_attachments, parse_tool_calls
from milk_tui.storage.turn_counts import KEPT_HANDOFFS, KEPT_USER_TURNS, handed_over_sql

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


HANDED_OVER = handed_over_sql("e")
"""``model/session.handed_over`` of the stored turn ``e`` (storage/turn_counts.py)."""


def questions_of(session_id_sql: str) -> str:
    """SQL for the questions of the session whose id is ``session_id_sql`` (a column or a
    parameter): its user turns, a hand-off's two counted once (``Session.question_count``);
    both kept (storage/turn_counts.py)."""
    return (
        f"({KEPT_USER_TURNS.format(sid=session_id_sql)} - "
        f"{KEPT_HANDOFFS.format(sid=session_id_sql)})"
    )


_NEXT_ROLE = "SELECT MIN(role) FROM turns WHERE session_id = ? AND role > ?"
_TAGGED = "SELECT 1 FROM turns WHERE session_id = ? AND role = ? AND agent = ? AND id < ? LIMIT 1"


def older_count(db: Database, session_id: str, before: int, base: int, name: str) -> int:
    """One of ``OLDER_COUNTS`` (model/turn_history.py) over the session's ``base`` turns
    before row id ``before``: a seek or a range of the ``turns_kind`` index, never a turn's
    row; an index of a turn counts back from ``before`` (a recent one costs what is after)."""

    def one(sql: str, *params: object) -> Any:
        return db.tuples(sql, (session_id, *params))[0][0]

    def answers(agent: str, after: int = 0) -> int:
        return int(
            one(
                "SELECT COUNT(*) FROM turns WHERE session_id = ? AND role = 'assistant' "
                "AND agent = ? AND id > ? AND id < ?",
                agent,
                after,
                before,
            )
        )

    def last_answer(agent: str) -> int:
        """The row id of the last answer of ``agent`` (0: none)."""
        at = one(
            "SELECT MAX(id) FROM turns WHERE session_id = ? AND role = 'assistant' "
            "AND agent = ? AND id < ?",
            agent,
            before,
        )
        return int(at or 0)

    def index_of(at: int) -> int:
        if not at:
            return -1
        after = one(
            "SELECT COUNT(*) FROM turns WHERE session_id = ? AND id >= ? AND id < ?", at, before
        )
        return base - int(after)

    match name:
        case "user":
            return count_by_agent(db, session_id, "user", 0, before)
        case "primary_answers":
            return answers(PRIMARY)
        case "escalation_answers":
            return answers(ESCALATION)
        case "escalation_tagged":
            return int(tagged(db, session_id, ESCALATION, before))
        case "last_primary_answer":
            return index_of(last_answer(PRIMARY))
        case "last_escalation_answer":
            return index_of(last_answer(ESCALATION))
        case "primary_since_escalation_answer":
            return answers(PRIMARY, after=last_answer(ESCALATION))
    raise KeyError(name)


def held_history(
    db: Database,
    session_id: str,
    read: TurnsRead,
    unloaded: int,
    note: Callable[[TurnsRead], None],
    known: dict[str, int] | None = None,
) -> History:
    """The session's history holding the turns ``read`` (its newest), ``unloaded`` turns
    before them left in the store: read a page at a time by the (session_id, id) key from
    the oldest held row back (``note`` hears of each page read), counted by
    ``older_count`` unless ``known`` (the store's kept counts) has it."""
    at = [read.first_id]

    def older(n: int) -> list[Turn]:
        page = read_turns(db, session_id, last=n, before=at[0])
        at[0] = page.first_id
        note(page)
        return page.turns

    def counts() -> OlderCounts:
        def ask(name: str) -> int:
            if known and name in known:  # kept by the store (storage/turn_counts.py)
                return known[name]
            return older_count(db, session_id, read.first_id, unloaded, name)

        return OlderCounts(ask, read.first_id)

    return History(read.turns, unloaded, older, counts)


def _m005_turn_kinds(db: MigrationConnection) -> None:
    """The turns of a session by role and agent: ``history_counts`` reads only this index
    (its counts are ranges of it, its latest turns seeks), not every turn's row."""
    db.executescript("CREATE INDEX turns_kind ON turns(session_id, role, agent, id);")


register_migration("005_turn_kinds", _m005_turn_kinds)


class Counted(NamedTuple):
    """What is known of a session's first turns: ``turns`` of them, the rows before id
    ``before``, ``users`` of which are user turns."""

    before: int
    turns: int
    users: int


def count_by_agent(db: Database, session_id: str, role: str, after: int, before: int) -> int:
    """The session's ``role`` turns with ``after`` < id < ``before``: a range of the
    ``turns_kind`` index per agent (a seek finds each agent), so it costs what it counts."""
    total = 0
    agent = db.tuples(_FIRST_AGENT, (session_id, role))[0][0]
    while agent is not None:
        total += db.tuples(_AGENT_RANGE, (session_id, role, agent, after, before))[0][0]
        agent = db.tuples(_NEXT_AGENT, (session_id, role, agent))[0][0]
    return int(total)


_FIRST_AGENT = "SELECT MIN(agent) FROM turns WHERE session_id = ? AND role = ?"
_NEXT_AGENT = "SELECT MIN(agent) FROM turns WHERE session_id = ? AND role = ? AND agent > ?"
_AGENT_RANGE = (
    "SELECT COUNT(*) FROM turns WHERE session_id = ? AND role = ? AND agent = ? "
    "AND id > ? AND id < ?"
)


def tagged(db: Database, session_id: str, agent: str, before: int = 2**62) -> bool:
    """Whether any of the session's turns before row id ``before`` is tagged ``agent``: a
    seek per role its turns have (a Go import may bring roles of its own)."""
    role: str | None = db.tuples(_FIRST_ROLE, (session_id,))[0][0]
    while role is not None:
        if db.tuples(_TAGGED, (session_id, role, agent, before)):
            return True
        role = db.tuples(_NEXT_ROLE, (session_id, role))[0][0]
    return False


_FIRST_ROLE = "SELECT MIN(role) FROM turns WHERE session_id = ?"


def history_counts(
    db: Database,
    session_id: str,
    need_set_at: int,
    records: int,
    known: Counted | None = None,
    held: Sequence[Turn] = (),
) -> HistoryCounts:
    """``Session.history_counts`` of the stored session of ``records`` turns, counted by
    SQLite: the same values for the same turns (tests/storage/test_history_tail.py holds
    them equal), from the ``turns_kind`` index instead of every turn read into memory.
    ``known``: the session's first turns' counts, so that only the turns after are
    counted (what a long session's older turns cost is paid once, ``OlderCounts``).
    ``held``: the session's newest turns, in memory (the last user turn's agent and the
    last escalation context are looked for there first: in the store each is a range over
    the session's user turns)."""

    def one(sql: str, *params: object) -> Any:
        return db.tuples(sql, (session_id, *params))[0]

    before, stored, exchanges = 0, 0, 0
    if known is not None:
        before, stored, exchanges = known
    (after,) = one("SELECT COUNT(*) FROM turns WHERE session_id = ? AND id >= ?", before)
    stored += after
    exchanges += count_by_agent(db, session_id, "user", before - 1, _AFTER_ALL)
    # The need was set at the ``need_set_at``-th turn: its question counts the user turns
    # up to that one (all of them when it lies past the end); found from the end, where a
    # need is set.
    need_id = 0
    if need_set_at > stored:
        need_id = _AFTER_ALL
    elif need_set_at > 0:
        (need_id,) = one(
            "SELECT id FROM turns WHERE session_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?",
            stored - need_set_at,
        )
    need_question = exchanges if need_id else 0
    if 0 < need_id < _AFTER_ALL:
        need_question -= count_by_agent(db, session_id, "user", need_id, _AFTER_ALL)
    # The hand-offs are kept; those after the need (set near the end) are counted, when
    # there is a need inside the history to count to.
    (repeats,) = one(KEPT_HANDOFFS.format(sid="?")[1:-1])  # the subquery, as a query
    repeats_to_need = repeats if need_id else 0
    if 0 < need_id < _AFTER_ALL:
        (after_need,) = one(
            f"SELECT COUNT(*) FROM turns e WHERE e.session_id = ? AND e.id > ? AND {HANDED_OVER}",
            need_id,
        )
        repeats_to_need -= after_need
    agent = next((t.agent for t in reversed(held) if t.role == "user" and t.agent), None)
    if agent is None:
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
    if last_escalation is not None or tagged(db, session_id, ESCALATION):
        (local,) = one(
            "SELECT COUNT(*) FROM turns WHERE session_id = ? AND role = 'assistant' "
            "AND agent = ? AND id > ?",
            PRIMARY,
            last_escalation or 0,
        )
    context = [
        (t.context_text,)
        for t in reversed(held)
        if t.role == "user" and t.agent == ESCALATION and t.context_text
    ][:1]
    if not context:  # none in memory: the store's, newest first
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
