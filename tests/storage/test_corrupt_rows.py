"""A session row whose ``meta`` or a turn's ``tool_calls`` cannot be read loads without the
bad field and one warning naming the session — never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from milk_tui.model.session import ToolCallRecord, Turn
from milk_tui.storage.db import Database
from milk_tui.storage.sessions import SessionStore
from milk_tui.testing.cli_run import run_milk

BAD_META = ["not json {", "[1, 2]", "42", json.dumps({"current_need": 5, "primary_nonce": "ok"})]
BAD_CALLS = ["not json [", json.dumps({"id": "x"}), json.dumps([{"id": 1, "name": "n"}]), "[3]"]


def _session(path: Path, cwd: str) -> str:
    db = Database(path)
    store = SessionStore(db)
    s = store.create(cwd, "hurt")
    s.record_need("the need", producer="user")
    turns = [
        Turn("user", "first question"),
        Turn("assistant", "used a tool", tool_calls=[ToolCallRecord("c1", "read", "{}")]),
    ]
    s.history.extend(turns)
    store.commit_turns(s, turns)
    db.close()
    return s.id


def _spoil(path: Path, meta: str | None = None, calls: str | None = None) -> None:
    db = Database(path)
    with db.transaction() as conn:
        if meta is not None:
            conn.execute("UPDATE sessions SET meta = ?", (meta,))
        if calls is not None:
            conn.execute("UPDATE turns SET tool_calls = ? WHERE role = 'assistant'", (calls,))
    db.close()


@pytest.mark.parametrize("meta", BAD_META)
def test_unreadable_meta_is_dropped_with_one_warning(tmp_path: Path, meta: str) -> None:
    sid = _session(tmp_path / "milk.db", "/p")
    _spoil(tmp_path / "milk.db", meta=meta)
    db = Database(tmp_path / "milk.db")
    store = SessionStore(db)
    s = store.load(sid)
    assert s is not None and [t.content for t in s.history][0] == "first question"
    assert s.current_need == ""  # a number is not a need
    assert s.history[1].tool_calls == [ToolCallRecord("c1", "read", "{}")]
    warnings = store.take_warnings()
    assert len(warnings) == 1 and sid in warnings[0] and "meta" in warnings[0]
    if "primary_nonce" in meta:
        assert s.primary_nonce == "ok"  # the well-typed fields stay
    assert [r.id for r in store.list("/p")] == [sid]
    db.close()


@pytest.mark.parametrize("calls", BAD_CALLS)
def test_unreadable_tool_calls_are_dropped_with_one_warning(tmp_path: Path, calls: str) -> None:
    sid = _session(tmp_path / "milk.db", "/p")
    _spoil(tmp_path / "milk.db", calls=calls)
    db = Database(tmp_path / "milk.db")
    store = SessionStore(db)
    s = store.load(sid)
    assert s is not None and s.history[1].tool_calls == [] and s.current_need == "the need"
    warnings = store.take_warnings()
    assert len(warnings) == 1 and sid in warnings[0] and "tool calls of 1 turn" in warnings[0]
    db.close()


def test_cli_show_and_list_warn_once_without_a_traceback(milk_home: Path, tmp_path: Path) -> None:
    sid = _session(milk_home / "milk.db", str(tmp_path))
    _spoil(milk_home / "milk.db", meta="not json {", calls="{}")
    for args in (("sessions", "show", "hurt"), ("sessions", "show", sid[:8], "--json")):
        out = run_milk(*args, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        assert "Traceback" not in out.stderr
        warn = out.stderr.strip().splitlines()
        assert len(warn) == 1 and sid in warn[0] and "meta" in warn[0] and "tool calls" in warn[0]
        assert "first question" in out.stdout
    out = run_milk("sessions", "list", cwd=tmp_path)
    assert out.returncode == 0 and sid in out.stdout


async def test_resume_and_switch_name_the_session_once(milk_home: Path, tmp_path: Path) -> None:
    from milk_tui.facade.application import start
    from milk_tui.model.events import Notice

    sid = _session(milk_home / "milk.db", str(tmp_path))
    _spoil(milk_home / "milk.db", meta="[]")
    app = start(cwd=str(tmp_path), demo=True)
    try:
        notes = [n for n in app.startup_notes if sid in n]
        assert len(notes) == 1 and "meta" in notes[0]
        assert app.session_id == sid
        await app.new_session("fresh")
        seen: list = []
        app.add_listener(seen.append)
        assert await app.switch_session(sid) is not None
        warned = [e for e in seen if isinstance(e, Notice) and sid in e.message]
        assert len(warned) == 1 and warned[0].level == "warning"
    finally:
        await app.aclose()
