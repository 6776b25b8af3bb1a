"""The task table: ids, prefixes, scopes, the whole-list mirror, the migration on old files."""

from __future__ import annotations

import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from milk_tui.storage.db import Database
from milk_tui.storage.sessions import SessionStore
from milk_tui.storage.tasks import TaskNotFound, TaskStore

FIXTURE = Path(__file__).parent.parent / "fixtures" / "db-0.1.0" / "milk.db"


@pytest.fixture
def db(tmp_path: Path) -> Database:
    d = Database(tmp_path / "milk.db")
    yield d
    d.close()


def test_ids_are_eight_of_a_z0_9_and_prefixes_of_four_find_them(db: Database) -> None:
    sid = SessionStore(db).create("/p").id
    store = TaskStore(db)
    t = store.create("  write   the tests ", sid)
    assert re.fullmatch(r"[a-z0-9]{8}", t.id) and t.text == "write the tests"
    assert store.resolve(t.id[:4], sid) == store.tasks_of(sid)[0]
    assert store.resolve(t.id.upper(), sid).id == t.id
    with pytest.raises(TaskNotFound, match="too short"):
        store.resolve(t.id[:3], sid)
    with pytest.raises(TaskNotFound, match="no task"):
        store.resolve("zzzzzzzz" if not t.id.startswith("zzzz") else "yyyyyyyy", sid)


def test_an_ambiguous_prefix_is_one_line_naming_both(db: Database) -> None:
    sid = SessionStore(db).create("/p").id
    store = TaskStore(db)
    a, b = store.create("a", sid), store.create("b", sid)
    db.conn.execute("UPDATE tasks SET id = 'abcd1111' WHERE id = ?", (a.id,))
    db.conn.execute("UPDATE tasks SET id = 'abcd2222' WHERE id = ?", (b.id,))
    with pytest.raises(TaskNotFound) as e:
        store.resolve("abcd", sid)
    assert "ambiguous" in str(e.value) and "abcd1111" in str(e.value) and "\n" not in str(e.value)
    assert store.resolve("abcd2", sid).text == "b"


def test_session_tasks_stay_in_their_session_and_global_ones_show_everywhere(db: Database) -> None:
    sessions = SessionStore(db)
    one, two = sessions.create("/p").id, sessions.create("/p").id
    store = TaskStore(db)
    store.create("of one", one)
    store.create("everyone's", None)
    assert [(t.text, t.scope) for t in store.tasks_of(two)] == [("everyone's", "global")]
    assert [t.text for t in store.tasks_of(one)] == ["of one", "everyone's"]
    with pytest.raises(TaskNotFound):  # another session's task is not addressable
        store.resolve(store.tasks_of(one)[0].id, two)
    sessions.delete(one)
    assert [t.text for t in store.tasks_of(None)] == ["everyone's"]
    assert db.query("SELECT count(*) FROM tasks")[0][0] == 1  # the session's went with it


def test_a_whole_list_update_keeps_ids_of_kept_items_and_drops_the_rest(db: Database) -> None:
    sid = SessionStore(db).create("/p").id
    store = TaskStore(db)
    mine = store.create("mine", sid)
    store.replace_origin(sid, "claude", [("read", "done"), ("fix", "in_progress")])
    fix = next(t for t in store.tasks_of(sid) if t.text == "fix")
    store.replace_origin(sid, "claude", [("fix", "done"), ("test", "open")])
    rows = [(t.text, t.status, t.origin) for t in store.tasks_of(sid)]
    assert rows == [("mine", "open", ""), ("fix", "done", "claude"), ("test", "open", "claude")]
    assert store.resolve(fix.id, sid).status == "done" and store.resolve(mine.id, sid)


def test_a_database_from_before_tasks_opens_and_takes_tasks(tmp_path: Path) -> None:
    path = tmp_path / "milk.db"
    shutil.copy(FIXTURE, path)
    before = sqlite3.connect(path)
    assert not before.execute("SELECT 1 FROM sqlite_master WHERE name = 'tasks'").fetchall()
    before.close()
    db = Database(path)
    try:
        assert "006_tasks" in db.schema_version
        sid = SessionStore(db).list(None)[0].id  # a session 0.1.0 wrote
        store = TaskStore(db)
        t = store.create("after the upgrade", sid)
        assert store.resolve(t.id, sid).text == "after the upgrade"
    finally:
        db.close()
