"""Facts an agent records during a turn survive a memory database that is briefly locked,
whichever way the agent wrote them (tag or ``record_memory`` tool)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from milk_tui.agents.base import Finished, TextChunk
from milk_tui.memory.service import MemoryService
from milk_tui.memory.store import PerceptStore
from milk_tui.storage.db import Database


async def test_tool_and_tag_facts_are_kept_pending_while_memory_is_locked(
    rig, tmp_path: Path
) -> None:  # noqa: ANN001
    mem_path = tmp_path / "memory.db"
    mem_db = Database(mem_path)
    mem_db.conn.execute("PRAGMA busy_timeout=50")
    mem = MemoryService(PerceptStore(mem_db), rig.bus)
    rig.dispatcher.memory = mem
    nonce = "abcd1234"
    rig.session.primary_nonce = nonce
    other = sqlite3.connect(mem_path, isolation_level=None)

    async def agent(req):  # noqa: ANN001, ANN202
        out = await req.tools.call(
            "record_memory",
            json.dumps({"content": "the staging box runs debian", "consumer": "escalation"}),
        )
        assert not out.is_error
        yield TextChunk(
            f"noted <milk:percept:{nonce}>deploys go through make ship</milk:percept:{nonce}>"
        )
        other.execute("BEGIN EXCLUSIVE")  # the memory db is locked when the turn commits
        yield Finished()

    rig.primary.stream = agent  # type: ignore[method-assign]
    try:
        out = await rig.dispatcher.run_turn("remember where things run please")
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert out.ok
    assert sorted(p["content"] for p in mem.pending) == [
        "deploys go through make ship",
        "the staging box runs debian",
    ]
    mem.flush_pending()
    stored = {p.content: p for p in mem.list()}
    assert set(stored) == {"deploys go through make ship", "the staging box runs debian"}
    assert stored["the staging box runs debian"].consumer == "escalation"
    assert stored["the staging box runs debian"].producer == "primary"
    mem_db.close()
