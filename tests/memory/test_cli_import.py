"""CLI commands, Go milk import and storage failures (corrupt / locked database)."""

from __future__ import annotations

import argparse
import io
import json
import sqlite3
from pathlib import Path

import pytest

from milk_tui.cli import build_parser
from milk_tui.cli.memory_cmd import run_import_go, run_memory
from milk_tui.engine.bus import EventBus
from milk_tui.facade.admin import Admin
from milk_tui.memory.import_go import import_go, parse_time
from milk_tui.memory.service import MemoryService
from milk_tui.memory.store import PerceptFilter, PerceptStore
from milk_tui.storage.db import Database, StorageError
from milk_tui.storage.sessions import SessionStore

SID = "6f1c2a9e-4b1d-4c1e-9a55-0d6f3b2c1a01"
SID2 = "0a9b8c7d-1111-4222-8333-944455566677"


def cli(db: Database, cwd: str, *argv: str) -> tuple[int, str, str]:
    args = build_parser().parse_args(list(argv))
    out, err = io.StringIO(), io.StringIO()
    if args.command == "import-go":
        rc = run_import_go(args, Admin(db), out, err)
    else:
        rc = run_memory(args, Admin(db), cwd, out, err)
    return rc, out.getvalue(), err.getvalue()


def test_memory_cli_roundtrip(db: Database, tmp_path: Path) -> None:
    cwd = str(tmp_path)
    assert cli(db, cwd, "memory", "add", "x", "--scope", "session")[0] == 1  # no session yet
    sess = SessionStore(db).create(cwd)
    rc, out, _ = cli(
        db, cwd, "memory", "add", "builds run with make", "--scope", "session", "--json"
    )
    assert rc == 0
    added = json.loads(out)
    assert (added["scope"], added["producer"], added["weight"]) == ("session", "user", 0.9)
    assert added["created_at"].endswith("Z")
    cli(db, cwd, "memory", "add", "the user is called ada", "--pin")
    rc, out, _ = cli(db, cwd, "memory", "list", "--json")
    rows = json.loads(out)
    assert {r["content"] for r in rows} == {"builds run with make", "the user is called ada"}
    for key in (
        "id",
        "content",
        "producer",
        "consumer",
        "scope",
        "core",
        "weight",
        "created_at",
        "updated_at",
    ):
        assert key in rows[0]
    assert (
        json.loads(cli(db, cwd, "memory", "list", "--scope", "session", "--json")[1])[0]["id"]
        == added["id"]
    )
    assert len(json.loads(cli(db, cwd, "memory", "list", "--search", "ada", "--json")[1])) == 1
    assert (
        cli(db, cwd, "memory", "edit", f"#{added['id']}", "--content", "builds run with ninja")[0]
        == 0
    )
    assert cli(db, cwd, "memory", "pin", str(added["id"]))[1].startswith("pinned")
    assert cli(db, cwd, "memory", "forget", str(added["id"]))[0] == 0
    assert cli(db, cwd, "memory", "forget", str(added["id"]))[0] == 1
    assert cli(db, cwd, "memory", "undo")[0] == 0  # the delete comes back
    mem = MemoryService(PerceptStore(db), EventBus())
    p = mem.get(added["id"])
    assert p is not None and p.content == "builds run with ninja" and p.core
    assert cli(db, cwd, "memory", "forget", "abc")[0] == 1  # text, not an id: no fact matches
    assert sess.id


# ----- Go import -------------------------------------------------------------------------


def _go_folder(root: Path) -> Path:
    (root / "sessions").mkdir(parents=True)
    (root / "memory").mkdir()
    session = {
        "id": SID,
        "name": "work",
        "cwd": "/home/u/proj",
        "created_at": "2026-05-30T10:11:12.123456789+02:00",
        "last_used": "2026-05-30T11:00:00.5Z",
        "state": "ESCALATION_WAITING",
        "claude_session_id": "claude-abc",
        "history": [
            {
                "role": "user",
                "agent": "primary",
                "agent_name": "llama",
                "content": "fix \u003cdiv\u003e \u0026 co",
                "timestamp": "2026-05-30T10:12:00Z",
            },
            {
                "role": "assistant",
                "agent": "primary",
                "agent_name": "llama",
                "content": "done",
                "thinking": "hmm",
                "timestamp": "2026-05-30T10:12:05.000000001+00:00",
                "tool_calls": [{"id": "c1", "name": "read_file", "arguments": '{"path":"a"}'}],
            },
        ],
        "current_need": "fix the layout",
        "current_need_set_at": 0,
        "escalation_brief": "",
        "last_local_summary": "s1",
        "last_claude_summary": "s2",
        "escalation_nonce": "ab12cd",
        "primary_nonce": "zz99yy",
        "tokens": {
            "qwen\u0000primary": {
                "model": "qwen",
                "agent": "primary",
                "prompt": 10,
                "completion": 5,
            }
        },
    }
    old = {
        "id": SID2,
        "cwd": "/home/u/other",
        "created_at": "0001-01-01T00:00:00Z",
        "last_used": "0001-01-01T00:00:00Z",
        "state": "CLAUDE_WAITING",
        "history": None,
    }
    raw = (
        json.dumps(session, indent=2)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
    )
    (root / "sessions" / f"{SID}.json").write_text(raw)
    (root / "sessions" / f"{SID2}.json").write_text(json.dumps(old))
    (root / "sessions" / f"{SID}.history").write_text("first line\nmulti\\nline\n\n")
    (root / "sessions" / "index.json").write_text(
        json.dumps(
            {
                "/home/u/proj": [
                    {"id": SID, "name": "work", "last_used": "2026-05-30T11:00:00.5Z"},
                    {"id": "gone", "last_used": "2026-05-01T00:00:00Z"},
                ],
            }
        )
    )
    pc = {
        "id": "11111111-2222-4333-8444-555555555555",
        "content": "user likes \u003ctabs\u003e",
        "producer": "user",
        "w": 0.85,
        "roles": {},
        "created_at": "2026-05-30T10:00:00.999999999-07:00",
        "updated_at": "2026-05-30T10:00:00Z",
        "core": True,
    }
    (root / "memory" / "global.json").write_text(
        json.dumps({"percepts": [pc], "engrams": None, "edges": None})
    )
    ps = {
        "id": "99999999-2222-4333-8444-555555555555",
        "content": "@claude fact for escalation",
        "producer": "escalation",
        "consumer": "escalation",
        "w": 0.6,
        "roles": {"theme": "x"},
        "created_at": "2026-05-30T10:00:00Z",
        "updated_at": "2026-05-30T10:00:00Z",
    }
    (root / "memory" / f"{SID}.json").write_text(json.dumps({"percepts": [ps]}))
    (root / "memory" / "broken.json").write_text("{not json")
    return root


def test_import_go_folder_is_complete_and_idempotent(db: Database, tmp_path: Path) -> None:
    root = _go_folder(tmp_path / ".milk")
    rep = import_go(db, root)
    assert (rep.sessions_added, rep.turns, rep.percepts_added) == (2, 2, 2)
    assert any("gone" in w for w in rep.warnings) and any("broken.json" in w for w in rep.warnings)
    s = SessionStore(db).load(SID)
    assert s is not None and (s.name, s.cwd, s.state.value) == (
        "work",
        "/home/u/proj",
        "ESCALATION_WAITING",
    )
    assert (
        s.history[0].content == "fix <div> & co" and s.history[1].tool_calls[0].name == "read_file"
    )
    assert s.history[1].thinking == "hmm"
    assert s.escalation_session_id == "claude-abc" and s.last_escalation_summary == "s2"
    assert (s.current_need, s.current_need_set_at) == ("fix the layout", 1)
    assert s.tokens[("qwen", "primary")].prompt == 10
    assert s.created_at == pytest.approx(parse_time("2026-05-30T08:11:12.123456789Z"))
    assert SessionStore(db).inputs(SID) == ["first line", "multi\nline"]
    old = SessionStore(db).load(SID2)
    assert old is not None and old.created_at == 0.0 and old.state.value == "ESCALATION_WAITING"
    assert SessionStore(db).find("/home/u/proj") == SID
    store = PerceptStore(db)
    g = store.list(PerceptFilter(scope="global"))
    assert [(p.content, p.core, p.weight, p.producer) for p in g] == [
        ("user likes <tabs>", True, 0.85, "user")
    ]
    sp = store.list(PerceptFilter(scope="session", session_id=SID))
    assert [(p.consumer, p.producer) for p in sp] == [("escalation", "escalation")]
    again = import_go(db, root)
    assert (again.sessions_added, again.percepts_added) == (0, 0)
    assert (again.sessions_skipped, again.percepts_skipped) == (2, 2)
    assert store.count() == 2 and len(SessionStore(db).load(SID).history) == 2


def test_import_go_cli_and_missing_folder(db: Database, tmp_path: Path) -> None:
    root = _go_folder(tmp_path / "gomilk")
    rc, out, err = cli(db, "/", "import-go", str(root))
    assert rc == 0 and out.startswith("sessions: 2 imported") and "warning:" in err
    rc, _, err = cli(db, "/", "import-go", str(tmp_path / "nope"))
    assert rc == 1 and "nope" in err


def test_parse_time_quirks() -> None:
    assert parse_time("0001-01-01T00:00:00Z") == 0.0
    assert parse_time("1970-01-01T00:00:01.5Z") == 1.5
    assert parse_time("1970-01-01T01:00:01.000000001+01:00") == pytest.approx(1.000000001)
    assert parse_time("garbage") == 0.0


# ----- storage failures -------------------------------------------------------------------


def test_corrupt_database_clear_error_and_file_untouched(tmp_path: Path) -> None:
    path = tmp_path / "milk.db"
    junk = b"this is not a database " * 200
    path.write_bytes(junk)
    with pytest.raises(StorageError) as e:
        Database(path)
    assert str(path) in str(e.value)
    assert path.read_bytes() == junk  # nothing overwritten


def test_locked_database_keeps_agent_facts_until_it_can_write(tmp_path: Path) -> None:
    path = tmp_path / "milk.db"
    db = Database(path)
    db.conn.execute("PRAGMA busy_timeout=50")
    bus = EventBus()
    seen: list = []
    bus.add_listener(seen.append)
    mem = MemoryService(PerceptStore(db), bus)
    mem.record("fact before the lock", "user", session_id="s")
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        got = mem.record_from_agent("fact while locked", "primary", "s", 1, "llama", "deepseek")
        assert got is None and len(mem.pending) == 1
        notice = [e for e in seen if e.type == "notice"][-1]
        assert notice.level == "error" and str(path) in notice.message
        with pytest.raises(StorageError, match=str(path)):
            mem.record("user fact while locked", "user", session_id="s")
    finally:
        other.execute("ROLLBACK")
        other.close()
    mem.record_from_agent("@deepseek: fact after the lock", "primary", "s", 2, "llama", "deepseek")
    assert mem.pending == []
    contents = {p.content for p in mem.list()}
    assert contents == {"fact before the lock", "fact while locked", "fact after the lock"}
    db.close()
    reopened = Database(path)
    assert PerceptStore(reopened).count() == 3
    reopened.close()


def test_parser_wires_memory_commands() -> None:
    args = build_parser().parse_args(
        ["memory", "list", "--json", "--scope", "global", "--search", "x"]
    )
    assert (
        isinstance(args, argparse.Namespace)
        and args.memory_cmd == "list"
        and args.scope == "global"
    )
