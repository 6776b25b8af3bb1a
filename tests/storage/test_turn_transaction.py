"""A turn and everything it changes commit together or not at all, and two processes
committing to one session never erase each other's changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from milk_tui.agents.base import Finished, TextChunk
from milk_tui.engine.bus import EventBus
from milk_tui.engine.turn_commit import save_turn
from milk_tui.memory.service import MAX_FACTS_PER_REPLY, MemoryService
from milk_tui.memory.store import PerceptStore
from milk_tui.model.session import State, Turn
from milk_tui.storage.db import Database, StorageError
from milk_tui.storage.sessions import SessionStore


def _open(path: Path) -> tuple[Database, SessionStore]:
    db = Database(path)
    return db, SessionStore(db)


def _turn(store: SessionStore, s, text: str) -> None:  # noqa: ANN001
    turns = [Turn("user", text), Turn("assistant", f"answer to {text}")]
    s.history.extend(turns)
    store.commit_turns(s, turns)


def test_a_need_recorded_by_one_connection_survives_the_others_commit(tmp_path: Path) -> None:
    db_a, a = _open(tmp_path / "milk.db")
    db_b, b = _open(tmp_path / "milk.db")
    sa = a.create("/p")
    sb = b.load(sa.id)
    assert sb is not None
    sa.record_need("ship the release", producer="primary")
    _turn(a, sa, "first from a")
    sb.primary_nonce = "n0nce"  # b changes something else, from its stale copy
    _turn(b, sb, "first from b")
    assert sb.current_need == "ship the release"  # merged into b's live copy too
    stored = a.load(sa.id)
    assert stored is not None
    assert stored.current_need == "ship the release" and stored.primary_nonce == "n0nce"
    assert [t.content for t in stored.history if t.role == "user"] == [
        "first from a",
        "first from b",
    ]
    # and the other way round: b's change survives a's next commit from its older copy
    _turn(a, sa, "second from a")
    stored = b.load(sa.id)
    assert stored is not None and stored.primary_nonce == "n0nce"
    assert stored.current_need == "ship the release" and len(stored.history) == 6
    db_a.close(), db_b.close()


def test_a_field_both_changed_keeps_the_later_commit_and_groups_stay_whole(
    tmp_path: Path,
) -> None:
    db_a, a = _open(tmp_path / "milk.db")
    db_b, b = _open(tmp_path / "milk.db")
    sa = a.create("/p")
    sb = b.load(sa.id)
    assert sb is not None
    sa.state, sa.escalation_brief = State.ESCALATION_WAITING, "why"
    a.save_meta(sa)
    sb.record_need("b's need", producer="user")
    b.save_meta(sb)
    assert (sb.state, sb.escalation_brief, sb.current_need) == (
        State.ESCALATION_WAITING,
        "why",
        "b's need",
    )
    sa.record_need("a's later need", producer="user")
    a.save_meta(sa)
    stored = b.load(sa.id)
    assert stored is not None and stored.current_need == "a's later need"
    assert stored.state == State.ESCALATION_WAITING
    db_a.close(), db_b.close()


def test_a_rename_elsewhere_is_not_undone_by_the_live_sessions_commit(tmp_path: Path) -> None:
    db_a, a = _open(tmp_path / "milk.db")
    db_b, b = _open(tmp_path / "milk.db")
    s = a.create("/p", "old")
    b.rename(s.id, "new name")
    _turn(a, s, "hello")
    assert s.name == "new name"
    stored = b.load(s.id)
    assert stored is not None and stored.name == "new name"
    db_a.close(), db_b.close()


def test_a_fact_the_database_refuses_takes_the_whole_turn_with_it(tmp_path: Path) -> None:
    db, store = _open(tmp_path / "milk.db")
    bus = EventBus()
    seen: list = []
    bus.add_listener(seen.append)
    mem = MemoryService(PerceptStore(db), bus)
    with db.transaction() as conn:
        conn.execute(
            "CREATE TRIGGER poison BEFORE INSERT ON percepts WHEN NEW.content = 'poison' "
            "BEGIN SELECT RAISE(ABORT, 'refused'); END"
        )
    s = store.create("/p")
    s.record_need("a need", producer="primary")
    turns = [Turn("user", "q"), Turn("assistant", "a")]
    s.history.extend(turns)
    facts = [mem.agent_fact(f"fact {i}", "primary", s.id, 1, "p", "e") for i in range(5)]
    facts.append(mem.agent_fact("poison", "primary", s.id, 1, "p", "e"))
    with pytest.raises(StorageError, match="refused"):
        save_turn(store, mem, s, turns, [], facts)
    assert db.query("SELECT COUNT(*) FROM turns")[0][0] == 0
    assert mem.count() == 0 and seen == []
    stored = store.load(s.id)
    assert stored is not None and stored.current_need == ""
    save_turn(store, mem, s, turns, [], facts[:5])  # the same turn without the poison
    assert db.query("SELECT COUNT(*) FROM turns")[0][0] == 2 and mem.count() == 5
    assert [e.type for e in seen] == ["percept_recorded"] * 5
    db.close()


async def test_facts_over_the_per_reply_limit_are_dropped_with_a_notice(rig) -> None:  # noqa: ANN001
    mem = MemoryService(PerceptStore(rig.store.db), rig.bus)
    rig.dispatcher.memory = mem
    nonce = "abcd1234"
    rig.session.primary_nonce = nonce
    extra = 7
    tags = "".join(
        f"<milk:percept:{nonce}>distinct fact number {i} w{i}x</milk:percept:{nonce}>"
        for i in range(MAX_FACTS_PER_REPLY + extra)
    )

    async def agent(req):  # noqa: ANN001, ANN202
        yield TextChunk("noted " + tags)
        yield Finished()

    rig.primary.stream = agent  # type: ignore[method-assign]
    out = await rig.dispatcher.run_turn("remember all of these")
    assert out.ok
    assert mem.count() == MAX_FACTS_PER_REPLY
    notices = [e.message for e in rig.of("notice") if "per reply" in e.message]
    assert notices == [
        f"{extra} facts over the limit of {MAX_FACTS_PER_REPLY} per reply were not recorded"
    ]
    assert len(rig.of("percept_recorded")) == MAX_FACTS_PER_REPLY
