"""The kept turn counts (``storage/turn_counts.py``) equal a recount after every kind of
write — a commit, a dropped exchange, a session deleted (its turns cascade), a turn moved, a
Go import — and a store made before them gets them filled at upgrade; a resumed session's
unread turns and the ``sessions list`` figures are read from them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from milk_tui.memory.import_go import import_go
from milk_tui.model.session import ESCALATION, PRIMARY, Session, Turn
from milk_tui.storage import db as db_module
from milk_tui.storage.db import Database
from milk_tui.storage.history_read import HANDED_OVER
from milk_tui.storage.sessions import SessionStore
from milk_tui.testing.go_install import make_go_install

RECOUNT = "SELECT session_id, role, agent, count(*) FROM turns GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
KEPT = "SELECT session_id, role, agent, n FROM turn_counts ORDER BY 1, 2, 3"


HANDOFFS = f"SELECT e.session_id, count(*) FROM turns e WHERE {HANDED_OVER} GROUP BY 1 ORDER BY 1"


def _same(db: Database, handoffs: bool = True) -> None:
    assert db.tuples(KEPT) == db.tuples(RECOUNT)
    if handoffs:
        assert db.tuples("SELECT session_id, n FROM handoff_counts ORDER BY 1") == db.tuples(
            HANDOFFS
        )


_KINDS = [("user", PRIMARY), ("user", ""), ("assistant", PRIMARY), ("assistant", ESCALATION)]
_KINDS += [("user", ESCALATION), ("tool", PRIMARY), ("system", "")]

_op = st.one_of(
    st.tuples(st.just("commit"), st.integers(0, 3), st.lists(st.sampled_from(_KINDS), max_size=6)),
    st.tuples(st.just("drop"), st.integers(0, 3), st.integers(1, 3)),
    st.tuples(st.just("delete"), st.integers(0, 3), st.just(0)),
    st.tuples(st.just("move"), st.integers(0, 3), st.sampled_from(_KINDS)),
    st.tuples(st.just("new"), st.just(0), st.just(0)),
    st.tuples(st.just("handoff"), st.integers(0, 3), st.booleans()),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=st.lists(_op, min_size=1, max_size=25))
def test_kept_counts_equal_a_recount_after_any_writes(tmp_path: Path, ops: list) -> None:
    path = tmp_path / "milk.db"
    for f in tmp_path.glob("milk.db*"):
        f.unlink()
    db = Database(path)
    store = SessionStore(db)
    sessions: list[Session] = [store.create("/p"), store.create("/q")]
    moved = False
    for op, k, arg in ops:
        s = sessions[k % len(sessions)] if sessions else None
        if op == "new" or s is None:
            sessions.append(store.create("/p"))
        elif op == "commit":
            turns = [Turn(role, f"t{i}", agent=agent) for i, (role, agent) in enumerate(arg)]
            s.history.extend(turns)
            store.commit_turns(s, turns)
        elif op == "handoff":  # as engine/turn_commit.py stores one (and one answered)
            q = f"handed over {len(s.history)}"
            turns = [Turn("user", q, agent=PRIMARY), Turn("assistant", "over", agent=PRIMARY)]
            turns.append(Turn("user", q, agent=ESCALATION))
            if arg:
                turns.append(Turn("assistant", "answer", agent=ESCALATION))
            s.history.extend(turns)
            store.commit_turns(s, turns)
        elif op == "drop":
            n = min(arg, len(s.history))
            dropped = list(s.history[len(s.history) - n :])
            del s.history[len(s.history) - n :]
            store.drop_turns(s, dropped)
        elif op == "delete":
            store.delete(s.id)
            sessions.remove(s)
        elif op == "move":  # no code path changes a turn's kind or session; SQL still may
            # (and then the turns around it may stop or start being a hand-off: only the
            # app's writes — appended, dropped from the end — keep hand-offs counted)
            moved = True
            role, agent = arg
            with db.transaction() as conn:
                conn.execute(
                    "UPDATE turns SET role = ?, agent = ? WHERE id = (SELECT max(id) FROM turns)",
                    (role, agent),
                )
                conn.execute(
                    "UPDATE turns SET session_id = ? WHERE id = (SELECT min(id) FROM turns)",
                    (sessions[0].id,),
                )
            # as another process would: the sessions are read again to go on writing
            sessions = [r for x in sessions if (r := store.load(x.id)) is not None]
        _same(db, handoffs=not moved)
    assert db.tuples("SELECT count(*) FROM turn_counts WHERE n <= 0") == [(0,)]
    assert db.tuples("SELECT count(*) FROM handoff_counts WHERE n <= 0") == [(0,)]
    db.close()


def test_a_go_import_is_counted(tmp_path: Path) -> None:
    db = Database(tmp_path / "milk.db")
    SessionStore(db)
    import_go(db, make_go_install(tmp_path / "go", 20, sessions=6, turns=7))
    assert db.tuples("SELECT count(*) FROM turns")[0][0] >= 6 * 7
    _same(db)
    import_go(db, make_go_install(tmp_path / "go2", 20, sessions=9, turns=5, seed=3))
    _same(db)


def _without_013(path: Path) -> None:
    """A store as the schema before migration 013 made it, with turns in it."""
    before = [m for m in db_module.MIGRATIONS if m[0] < "013"]
    saved = list(db_module.MIGRATIONS)
    db_module.MIGRATIONS[:] = before
    try:
        db = Database(path)
        store = SessionStore(db)
        db_module.MIGRATIONS[:] = before  # SessionStore registers nothing new: still before
        for k in range(3):
            s = store.create(f"/p{k}")
            turns = []
            for j in range(k + 1):  # hand-offs, each two user turns and one question
                turns += [
                    Turn("user", f"h{j}", agent=PRIMARY),
                    Turn("assistant", "over", agent=PRIMARY),
                ]
                turns += [
                    Turn("user", f"h{j}", agent=ESCALATION),
                    Turn("assistant", "a", agent=ESCALATION),
                ]
            turns += (
                [Turn("user", "q", agent=PRIMARY), Turn("assistant", "a", agent=PRIMARY)]
                * 40
                * (k + 1)
            )
            s.history.extend(turns)
            store.commit_turns(s, turns)
        tables = {r[0] for r in db.tuples("SELECT name FROM sqlite_master")}
        assert not {"turn_counts", "handoff_counts"} & tables
        db.close()
    finally:
        db_module.MIGRATIONS[:] = saved


def test_an_older_store_gets_its_counts_at_upgrade(tmp_path: Path) -> None:
    path = tmp_path / "milk.db"
    _without_013(path)
    db = Database(path)
    store = SessionStore(db)
    assert {"013_turn_counts", "015_handoff_counts"} <= set(db.schema_version)
    _same(db)
    assert sum(n for *_, n in db.tuples(KEPT)) == 84 * (1 + 2 + 3)
    assert db.tuples("SELECT n FROM handoff_counts ORDER BY n") == [(1,), (2,), (3,)]
    s = store.resume("/p2", tail=16)  # 252 turns, 16 held: the rest known from the counts
    assert (s.unread, len(s.history), s.user_turn_count()) == (236, 252, 126)
    assert s.history.pages_read == 0
    listed = {x.cwd: (x.turns, x.questions) for x in store.list()}
    assert listed == {"/p0": (84, 41), "/p1": (168, 82), "/p2": (252, 123)}
    assert store.history_counts(s).exchanges == s.question_count() == 123


def test_the_release_0_1_0_store_gets_its_counts(tmp_path: Path) -> None:
    fixture = Path(__file__).parent.parent / "fixtures" / "db-0.1.0" / "milk.db"
    path = tmp_path / "milk.db"
    path.write_bytes(fixture.read_bytes())
    db = Database(path)
    SessionStore(db)
    assert db.tuples(KEPT) and db.tuples(KEPT) == db.tuples(RECOUNT)


def test_a_resumed_session_reads_its_counts_not_its_turns(tmp_path: Path) -> None:
    """What the tail leaves out is taken from the kept counts: a wrong count shows."""
    db = Database(tmp_path / "milk.db")
    store = SessionStore(db)
    s = store.create("/p")
    turns = [Turn("user", f"q{i}", agent=PRIMARY) for i in range(50)]
    s.history.extend(turns)
    store.commit_turns(s, turns)
    with db.transaction() as conn:  # the kept count alone made wrong
        conn.execute("UPDATE turn_counts SET n = n + 7")
    r = store.resume("/p", tail=10)
    assert (r.unread, r.user_turn_count()) == (47, 57)
    assert [(x.turns, x.questions) for x in store.list()] == [(57, 57)]
    with db.transaction() as conn:  # and three hand-offs that are not there
        conn.execute("INSERT INTO handoff_counts VALUES (?, 3)", (s.id,))
    assert [x.questions for x in store.list()] == [54]
    assert store.history_counts(store.resume("/p", tail=10)).exchanges == 54


def test_the_triggers_hold_for_a_raw_sql_writer(tmp_path: Path) -> None:
    """Another program's (or an older release's) plain SQL is counted too."""
    db = Database(tmp_path / "milk.db")
    store = SessionStore(db)
    s = store.create("/p")
    conn = sqlite3.connect(tmp_path / "milk.db")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.executemany(
        "INSERT INTO turns (session_id, role, content, timestamp) VALUES (?, 'user', 'x', 0)",
        [(s.id,)] * 5,
    )
    conn.commit()
    _same(db)
    conn.execute("DELETE FROM sessions WHERE id = ?", (s.id,))
    conn.commit()
    conn.close()
    _same(db)
    assert db.tuples(KEPT) == []


def test_the_tail_and_its_counts_are_read_in_one_snapshot(tmp_path: Path) -> None:
    """Another process's commit between the two reads does not reach the second one."""
    db = Database(tmp_path / "milk.db")
    store = SessionStore(db)
    s = store.create("/p")
    s.history.append(Turn("user", "q", agent=PRIMARY))
    store.commit_turns(s, list(s.history))
    other = sqlite3.connect(tmp_path / "milk.db")
    count = "SELECT sum(n) FROM turn_counts WHERE session_id = ?"
    with db.snapshot():
        first = db.tuples(count, (s.id,))[0][0]
        other.execute(
            "INSERT INTO turns (session_id, role, content, timestamp) VALUES (?, 'user', 'x', 0)",
            (s.id,),
        )
        other.commit()
        assert db.tuples(count, (s.id,))[0][0] == first == 1
    assert db.tuples(count, (s.id,))[0][0] == 2
    other.close()
