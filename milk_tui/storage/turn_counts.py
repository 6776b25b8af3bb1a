"""Turn counts kept, not recounted: how many turns each session holds, by role and agent.

A session resumed tail first (engine/open_store.py ``HISTORY_TAIL``) must know how many of
its turns it did not read, and a turn's repeated-prompt baseline how many user turns those
are; ``sessions list`` shows each session's turns and questions.  Counted, each is a range of
the session's index as long as the session (~5 ms a 100,000-turn session with a warm cache,
more in a fresh process).  SQLite triggers keep ``turn_counts`` in step with every insert,
delete (a session's deletion cascades to its turns, and so through the delete trigger) and
change of a turn's session, role or agent, whichever code path writes; a row that falls to
zero goes, so the table holds only what is there.  Read with the session's tail in one read
transaction (``kept_older``), the counts over the unread turns are exact for that snapshot.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from milk_tui.model.session import ESCALATION, PRIMARY
from milk_tui.storage.db import Database, MigrationConnection, register_migration

if TYPE_CHECKING:
    from milk_tui.model.session import Turn

_TRIGGERS = """
CREATE TRIGGER turn_counts_insert AFTER INSERT ON turns BEGIN
    INSERT INTO turn_counts (session_id, role, agent, n)
        VALUES (new.session_id, new.role, new.agent, 1)
        ON CONFLICT (session_id, role, agent) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER turn_counts_delete AFTER DELETE ON turns BEGIN
    UPDATE turn_counts SET n = n - 1
        WHERE session_id = old.session_id AND role = old.role AND agent = old.agent;
    DELETE FROM turn_counts
        WHERE session_id = old.session_id AND role = old.role AND agent = old.agent AND n <= 0;
END;
CREATE TRIGGER turn_counts_move AFTER UPDATE OF session_id, role, agent ON turns
WHEN old.session_id IS NOT new.session_id OR old.role IS NOT new.role
    OR old.agent IS NOT new.agent BEGIN
    UPDATE turn_counts SET n = n - 1
        WHERE session_id = old.session_id AND role = old.role AND agent = old.agent;
    DELETE FROM turn_counts
        WHERE session_id = old.session_id AND role = old.role AND agent = old.agent AND n <= 0;
    INSERT INTO turn_counts (session_id, role, agent, n)
        VALUES (new.session_id, new.role, new.agent, 1)
        ON CONFLICT (session_id, role, agent) DO UPDATE SET n = n + 1;
END;
"""


def _m013_turn_counts(db: MigrationConnection) -> None:
    # Filled once from the ``turns_kind`` index (session_id, role, agent, id), which covers
    # the grouping: the rows themselves are not read.
    db.executescript(
        """
        CREATE TABLE turn_counts (
            session_id TEXT NOT NULL,
            role TEXT NOT NULL,
            agent TEXT NOT NULL,
            n INTEGER NOT NULL,
            PRIMARY KEY (session_id, role, agent)
        ) WITHOUT ROWID;
        INSERT INTO turn_counts (session_id, role, agent, n)
            SELECT session_id, role, agent, count(*) FROM turns
            GROUP BY session_id, role, agent;
        """
        + _TRIGGERS
    )


register_migration("013_turn_counts", _m013_turn_counts)


def handed_over_sql(row: str) -> str:
    """SQL true when the stored turn ``row`` (an alias, ``new`` or ``old``) is a hand-off's
    second user turn (``model/session.handed_over``): a user turn of the escalation agent
    whose previous turn in its session is the primary's answer, and the one before that the
    primary's user turn with the same text.  Two seeks of the (session_id, id) index."""
    return (
        f"{row}.role = 'user' AND {row}.agent = '{ESCALATION}' AND {row}.content = ("
        "SELECT u.content FROM turns a JOIN turns u ON u.id = ("
        "SELECT MAX(id) FROM turns WHERE session_id = a.session_id AND id < a.id) "
        f"WHERE a.id = (SELECT MAX(id) FROM turns WHERE session_id = {row}.session_id "
        f"AND id < {row}.id) AND a.role = 'assistant' AND a.agent = '{PRIMARY}' "
        f"AND u.role = 'user' AND u.agent = '{PRIMARY}')"
    )


def _m015_handoff_counts(db: MigrationConnection) -> None:
    # Whether a turn is a hand-off depends on the two turns before it, which do not change
    # while it exists: turns are only appended to a session or dropped from its end
    # (``SessionStore.drop_turns`` deletes the newest first), so the test made when a turn
    # is written holds until it is deleted, where it is made again.  A session's deletion
    # cascades to its turns in no set order: its row goes with the session.
    db.executescript(
        f"""
        CREATE TABLE handoff_counts (
            session_id TEXT PRIMARY KEY,
            n INTEGER NOT NULL
        ) WITHOUT ROWID;
        INSERT INTO handoff_counts (session_id, n)
            SELECT e.session_id, count(*) FROM turns e
            WHERE e.role = 'user' AND e.agent = '{ESCALATION}' AND {handed_over_sql("e")}
            GROUP BY e.session_id;
        CREATE TRIGGER handoff_counts_insert AFTER INSERT ON turns
        WHEN {handed_over_sql("new")} BEGIN
            INSERT INTO handoff_counts (session_id, n) VALUES (new.session_id, 1)
                ON CONFLICT (session_id) DO UPDATE SET n = n + 1;
        END;
        CREATE TRIGGER handoff_counts_delete AFTER DELETE ON turns
        WHEN {handed_over_sql("old")} BEGIN
            UPDATE handoff_counts SET n = n - 1 WHERE session_id = old.session_id;
            DELETE FROM handoff_counts WHERE session_id = old.session_id AND n <= 0;
        END;
        CREATE TRIGGER handoff_counts_session AFTER DELETE ON sessions BEGIN
            DELETE FROM handoff_counts WHERE session_id = old.id;
        END;
        """
    )


register_migration("015_handoff_counts", _m015_handoff_counts)

KEPT_HANDOFFS = "(SELECT coalesce(sum(n), 0) FROM handoff_counts WHERE session_id = {sid})"
"""SQL for the kept number of hand-offs of the session ``{sid}`` names: prompts the primary
handed to the escalation agent, stored as two user turns and counted as one question."""

KEPT_TURNS = "(SELECT coalesce(sum(n), 0) FROM turn_counts WHERE session_id = {sid})"
"""SQL for the kept number of turns of the session ``{sid}`` names (a column or ``?``)."""
KEPT_USER_TURNS = (
    "(SELECT coalesce(sum(n), 0) FROM turn_counts WHERE session_id = {sid} AND role = 'user')"
)
"""SQL for the kept number of user turns of the session ``{sid}`` names."""


def kept(db: Database, session_id: str) -> Counter[tuple[str, str]]:
    """The session's turns by (role, agent), as kept."""
    rows = db.tuples("SELECT role, agent, n FROM turn_counts WHERE session_id = ?", (session_id,))
    return Counter({(role, agent): int(n) for role, agent, n in rows})


def older_counts(
    counts: Counter[tuple[str, str]], held: Sequence[Turn]
) -> tuple[int, dict[str, int]]:
    """The session's turns before ``held`` (its newest turns, read in the same snapshot as
    ``counts``): how many, and those of ``OLDER_COUNTS`` (model/turn_history.py) that are
    sums by role and agent."""
    older = counts.copy()
    older.subtract(Counter((t.role, t.agent) for t in held))
    by_agent: Counter[str] = Counter()
    users = 0
    for (role, agent), n in older.items():
        by_agent[agent] += n
        users += n if role == "user" else 0
    return sum(older.values()), {
        "user": users,
        "primary_answers": older[("assistant", PRIMARY)],
        "escalation_answers": older[("assistant", ESCALATION)],
        "escalation_tagged": int(by_agent[ESCALATION] > 0),
    }
