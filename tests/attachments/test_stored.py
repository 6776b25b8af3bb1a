"""Attachments are stored with the user turn (names, kinds, sizes, hashes — no bytes), a
resumed session has them, later turns' history carries a placeholder, and a failed turn
records nothing and keeps the files staged."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from dispatch_rig import Rig

from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.engine.attachments import read_attachment
from milk_tui.facade.application import start
from milk_tui.model.attachment import AttachmentInfo
from milk_tui.storage.session_rows import parse_attachments
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.testing.scripted_agent import say
from tests.attachments.files import write_png


async def test_turn_stores_attachment_infos_without_bytes(
    rig: Rig, tmp_path: Path, milk_home: Path
):
    write_png(tmp_path / "s.png")
    (tmp_path / "n.txt").write_text("note body")
    files = tuple(read_attachment(n, str(tmp_path)) for n in ("s.png", "n.txt"))
    rig.primary.push(say("ok"))
    out = await rig.dispatcher.run_turn("look", force="primary", attachments=files)
    assert out.ok
    started = rig.of("turn_started")[-1]
    assert [a.name for a in started.attachments] == ["s.png", "n.txt"]
    assert "base64" not in started.to_json() and "note body" not in started.to_json()
    loaded = rig.reload()
    assert loaded.history[0].attachments == [f.info for f in files]
    assert loaded.history[1].attachments == []
    raw = (
        sqlite3.connect(milk_home / "milk.db")
        .execute("SELECT attachments FROM turns WHERE role = 'user'")
        .fetchone()[0]
    )
    stored = json.loads(raw)
    assert {"name", "kind", "mime", "size", "sha256", "path"} == set(stored[0])
    assert "note body" not in raw


async def test_later_history_carries_one_placeholder_per_file(rig: Rig, tmp_path: Path):
    write_png(tmp_path / "s.png")
    files = (read_attachment("s.png", str(tmp_path)),)
    rig.primary.push(say("ok"), say("again"))
    await rig.dispatcher.run_turn("look", force="primary", attachments=files)
    await rig.dispatcher.run_turn("and now?", force="primary")
    history = rig.primary.requests[-1].messages
    user = [m.content for m in history if m.role == "user"]
    assert user[-1].endswith("look\n[attached image: s.png (image/png, 73 B)]")
    assert not rig.primary.requests[-1].attachments


async def test_failed_turn_records_nothing_and_keeps_files_staged(tmp_path: Path):
    write_png(tmp_path / "s.png")
    with FakeOpenAIServer() as srv:
        srv.enqueue(FakeReply(status=500, error_body="overloaded"), FakeReply(text=["fine"]))
        cfg = MilkConfig(
            agent="llama",
            agents=[AgentConfig(name="llama", provider="local", url=srv.url)],
        )
        app = start(cwd=str(tmp_path), config=cfg, new=True)
        try:
            await app.attachments.attach("s.png")
            task = app.submit("look", force="primary")
            assert task is not None
            result = await task
            assert not result.ok and [a.name for a in app.attachments.staged] == ["s.png"]
            assert app.session_view().exchanges == 0
            task = app.submit("look", force="primary")
            assert task is not None and (await task).ok
            assert app.attachments.staged == []
            sent = srv.chat_requests[-1].json["messages"][-1]["content"]
            assert sent[1]["type"] == "image_url"
        finally:
            await app.aclose()


def test_unreadable_stored_attachments_are_dropped_with_a_warning(store, tmp_path: Path):
    s = store.create(str(tmp_path))
    from milk_tui.model.session import Turn

    t = Turn("user", "hi", attachments=[AttachmentInfo("a.png", "image", "image/png", 3, "ab")])
    s.history.append(t)
    store.commit_turns(s, [t])
    with store.db.transaction() as db:
        db.execute("UPDATE turns SET attachments = '[{\"bogus\": 1}]'")
    loaded = store.load(s.id)
    assert loaded.history[0].attachments == []
    assert any("attachments of 1 turn" in w for w in store.take_warnings())


def test_parse_attachments_rejects_wrong_shapes():
    assert parse_attachments("{}") is None
    assert parse_attachments("not json") is None
    assert (
        parse_attachments('[{"name": "a", "kind": "video", "mime": "x", "size": 1, "sha256": ""}]')
        is None
    )
    good = '[{"name": "a", "kind": "text", "mime": "text/plain", "size": 1, "sha256": "x", "path": ""}]'
    assert parse_attachments(good) == [AttachmentInfo("a", "text", "text/plain", 1, "x", "")]


async def test_a_hand_off_gives_the_escalation_the_files_too(rig: Rig, tmp_path: Path):
    write_png(tmp_path / "s.png")
    files = (read_attachment("s.png", str(tmp_path)),)
    rig.primary.push(say("over to you", escalation_reason="needs a vision model"))
    rig.escalation.push(say("a red square"))
    out = await rig.dispatcher.run_turn("what is this?", force="primary", attachments=files)
    assert out.ok
    assert rig.primary.requests[-1].attachments == files
    assert rig.escalation.requests[-1].attachments == files
    users = [t for t in rig.reload().history if t.role == "user"]
    assert [[a.name for a in t.attachments] for t in users] == [["s.png"], ["s.png"]]
