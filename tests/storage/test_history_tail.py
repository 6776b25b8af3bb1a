"""A resumed session opened tail first (storage/history_read.py): its last turns now, the
older ones later, and in between the counts the panes show come from SQLite — the same
values ``Session.history_counts`` gives for the whole history."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from milk_tui.model.attachment import AttachmentInfo
from milk_tui.model.session import ESCALATION, PRIMARY, Session, ToolCallRecord, Turn
from milk_tui.model.turn_history import OLDER_COUNTS, History
from milk_tui.storage.db import Database
from milk_tui.storage.sessions import SessionStore

_turn = st.builds(
    Turn,
    role=st.sampled_from(["user", "assistant", "tool_result"]),
    content=st.sampled_from(["a", "b"]),
    agent=st.sampled_from([PRIMARY, ESCALATION, ""]),
    context_text=st.sampled_from(["", "", "orientation"]),
)


def _stored(store: SessionStore, turns: list[Turn], need_set_at: int = 0) -> Session:
    s = store.create("/proj")
    s.history.extend(turns)
    s.current_need, s.current_need_set_at = ("the need", need_set_at) if need_set_at else ("", 0)
    store.commit_turns(s, turns)
    return s


@settings(max_examples=150, deadline=None)
@given(turns=st.lists(_turn, max_size=30), need=st.integers(0, 32))
@example(turns=[Turn("user", "q", agent="")], need=0)  # a legacy turn names no agent
@example(  # a primary reply after the last escalation one, and an older context
    turns=[
        Turn("user", "q", agent=ESCALATION, context_text="old"),
        Turn("assistant", "a", agent=ESCALATION),
        Turn("user", "q", agent=ESCALATION),
        Turn("assistant", "a", agent=PRIMARY),
    ],
    need=2,
)
def test_the_stored_counts_are_the_whole_historys(turns: list[Turn], need: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        db = Database(Path(d) / "milk.db")
        try:
            store = SessionStore(db)
            s = _stored(store, turns, need)
            whole = store.load(s.id)
            assert whole is not None and whole.unread == 0
            assert store.history_counts(whole) == whole.history_counts()
            for tail in (1, 3, 8):  # the older turns' counts kept, the rest counted
                part = store.load(s.id, tail=tail)
                assert part is not None
                assert store.history_counts(part) == whole.history_counts(), tail
        finally:
            db.close()


def test_a_tail_first_session_reads_its_older_turns_later_and_is_then_the_whole(
    tmp_path: Path,
) -> None:
    db = Database(tmp_path / "milk.db")
    store = SessionStore(db)
    turns = [Turn("user" if i % 2 == 0 else "assistant", f"turn {i}") for i in range(50)]
    turns[3].tool_calls = [ToolCallRecord("c1", "read_file", '{"path": "a"}')]
    turns[4].attachments = [AttachmentInfo("a.txt", "text", "text/plain", 3, "ab" * 32)]
    s = _stored(store, turns, need_set_at=7)
    whole = store.load(s.id)
    tail = store.load(s.id, tail=8)
    assert whole is not None and tail is not None
    # Indexes are the whole history's; only the last 8 are held.
    assert len(tail.history) == 50
    assert [t.content for t in tail.history[42:]] == [f"turn {i}" for i in range(42, 50)]
    assert tail.unread == 42
    # The panes' counts before the older turns are read: the whole history's.
    assert store.history_counts(tail) == whole.history_counts()
    assert tail.need_turns_ago() == whole.need_turns_ago()
    store.read_older(tail)
    assert tail.unread == 0
    assert tail.history == whole.history
    assert tail.history[3].tool_calls[0].name == "read_file"
    assert tail.history[4].attachments[0].name == "a.txt"
    db.close()


def test_a_session_shorter_than_the_tail_is_read_whole(tmp_path: Path) -> None:
    db = Database(tmp_path / "milk.db")
    store = SessionStore(db)
    s = _stored(store, [Turn("user", "q"), Turn("assistant", "a")])
    for tail in (2, 64):
        loaded = store.load(s.id, tail=tail)
        assert loaded is not None and loaded.unread == 0 and len(loaded.history) == 2
    db.close()


def test_an_unreadable_older_turn_is_named_when_it_is_read(tmp_path: Path) -> None:
    db = Database(tmp_path / "milk.db")
    store = SessionStore(db)
    s = _stored(store, [Turn("user", f"q{i}") for i in range(10)])
    with db.transaction() as c:
        c.execute(
            "UPDATE turns SET tool_calls = '{not json' WHERE id = "
            "(SELECT MIN(id) FROM turns WHERE session_id = ?)",
            (s.id,),
        )
    tail = store.load(s.id, tail=4)
    assert tail is not None and store.take_warnings() == []
    store.read_older(tail)
    assert [t.content for t in tail.history] == [f"q{i}" for i in range(10)]
    assert store.take_warnings() == [
        f"session {s.id}: could not read the tool calls of 1 turn(s); loaded without them"
    ]
    db.close()


def test_the_counts_search_indexes_and_never_scan_the_turns(tmp_path: Path) -> None:
    """What keeps them ~1 ms for 10,000 turns: every statement seeks or ranges an index of
    the session's turns (SQLite's query plan says SEARCH … INDEX), none reads the table."""
    db = Database(tmp_path / "milk.db")
    store = SessionStore(db)
    turns = [Turn("user", "q", agent=PRIMARY), Turn("assistant", "a", agent=ESCALATION)] * 20
    s = _stored(store, turns, need_set_at=9)
    store.create("/other")  # another session's turns share the table
    tail = store.load(s.id, tail=4)
    assert isinstance(tail.history, History)
    seen: list[str] = []
    db.conn.set_trace_callback(seen.append)
    store.history_counts(s)
    store.history_counts(tail)  # the older turns' counts, then the rest's
    older = tail.history.older_counts()
    assert older is not None
    assert [older.get(name) for name in OLDER_COUNTS] == [18, 0, 18, 1, -1, 35, 0]
    db.conn.set_trace_callback(None)
    plans = [
        detail
        for sql in seen
        if sql.lstrip().upper().startswith("SELECT")
        for *_, detail in db.conn.execute("EXPLAIN QUERY PLAN " + sql).fetchall()
    ]
    assert len(seen) >= 5 and plans
    assert all("SCAN" not in p for p in plans), plans
    assert any("turns_kind" in p for p in plans), plans
    db.close()
