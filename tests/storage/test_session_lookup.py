"""Sessions are addressed exactly: a name, a full id or an 8+ character id prefix, in the
current folder only unless every folder is asked for; user text is never a LIKE pattern."""

from __future__ import annotations

from pathlib import Path

import pytest

from milk_tui.storage.db import Database, StorageError
from milk_tui.storage.session_lookup import SessionLookupError
from milk_tui.storage.sessions import SessionStore
from milk_tui.testing.cli_run import run_milk


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    db = Database(tmp_path / "milk.db")
    yield SessionStore(db)
    db.close()


def _with_id(store: SessionStore, cwd: str, sid: str, name: str = "") -> str:
    s = store.create(cwd, name)
    with store.db.transaction() as db:
        db.execute("UPDATE sessions SET id = ? WHERE id = ?", (sid, s.id))
    return sid


def test_name_full_id_and_long_prefix_match_in_this_folder(store: SessionStore) -> None:
    sid = _with_id(store, "/a", "9a8b7c6d-0000-4000-8000-000000000001", "work")
    assert store.find("/a", "work") == sid
    assert store.find("/a", sid) == sid
    assert store.find("/a", sid.upper()) == sid
    assert store.find("/a", sid[:8]) == sid
    assert store.find("/a", sid[:7]) is None  # too short to be an address
    assert store.find("/a", "9") is None


def test_another_folders_session_needs_any_folder(store: SessionStore) -> None:
    sid = _with_id(store, "/other", "9a8b7c6d-0000-4000-8000-000000000001", "work")
    for key in ("work", sid, sid[:8], sid[:12]):
        assert store.find("/a", key) is None, key
        assert store.find("/a", key, any_folder=True) == sid, key
    here = _with_id(store, "/a", "11111111-0000-4000-8000-000000000002", "work")
    assert store.find("/a", "work", any_folder=True) == here  # this folder's first


@pytest.mark.parametrize("key", ["%", "%%%%%%%%", "________", "9a8b%", "9a8b____", "\\%", "*"])
def test_like_wildcards_match_only_themselves(store: SessionStore, key: str) -> None:
    _with_id(store, "/a", "9a8b7c6d-0000-4000-8000-000000000001")
    assert store.find("/a", key) is None
    assert store.find("/a", key, any_folder=True) is None
    s = store.resume("/a", key)
    assert s.name == key and s.id != "9a8b7c6d-0000-4000-8000-000000000001"
    assert store.find("/a", key) == s.id  # the literal name now addresses the new session


def test_an_ambiguous_prefix_is_one_error_listing_the_candidates(store: SessionStore) -> None:
    a = _with_id(store, "/a", "abcdef01-0000-4000-8000-000000000001")
    b = _with_id(store, "/a", "abcdef01-1111-4000-8000-000000000002")
    _with_id(store, "/b", "abcdef01-2222-4000-8000-000000000003")
    with pytest.raises(SessionLookupError) as e:
        store.find("/a", "abcdef01")
    msg = str(e.value)
    assert a in msg and b in msg and "2 sessions" in msg and "\n" not in msg
    assert isinstance(e.value, StorageError)
    with pytest.raises(SessionLookupError, match="3 sessions"):
        store.find("/a", "abcdef01", any_folder=True)
    assert store.find("/a", "abcdef01-1") == b
    with pytest.raises(SessionLookupError):
        store.resume("/a", "abcdef01")  # never a guess, never a new session
    # (store.list hides sessions without a turn; these have none)
    assert store.db.query("SELECT COUNT(*) FROM sessions WHERE cwd = '/a'")[0][0] == 2


def test_cli_show_is_folder_scoped_and_ambiguity_is_one_line(
    milk_home: Path, tmp_path: Path
) -> None:
    db = Database(milk_home / "milk.db")
    store = SessionStore(db)
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir(), there.mkdir()
    sid = _with_id(store, str(there), "abcdef01-0000-4000-8000-000000000001", "theirs")
    _with_id(store, str(here), "abcdef01-1111-4000-8000-000000000002")
    _with_id(store, str(here), "abcdef01-2222-4000-8000-000000000003")
    db.close()
    out = run_milk("sessions", "show", "theirs", cwd=here)
    assert out.returncode == 1 and "add --any-folder" in out.stderr
    out = run_milk("sessions", "show", "theirs", "--any-folder", cwd=here)
    assert out.returncode == 0 and sid in out.stdout
    out = run_milk("sessions", "show", "abcdef01", cwd=here)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "2 sessions" in out.stderr


def test_a_fact_search_without_words_is_a_substring_not_a_pattern(tmp_path: Path) -> None:
    from milk_tui.engine.bus import EventBus
    from milk_tui.memory.service import MemoryService
    from milk_tui.memory.store import PerceptStore

    db = Database(tmp_path / "m.db")
    mem = MemoryService(PerceptStore(db), EventBus())
    for text in ("disk is 100% full", "a plain fact", "snake_case names", "UPPER %"):
        mem.record(text)
    assert sorted(p.content for p in mem.search("%")) == ["UPPER %", "disk is 100% full"]
    assert mem.search_count("%") == 2
    assert [p.content for p in mem.search("_")] == ["snake_case names"]
    assert mem.search("%%") == [] and mem.search_count("__") == 0
    db.close()
