"""A turn on a session longer than the tail it is resumed with (engine/open_store.py
``HISTORY_TAIL``) sends the agent the request the whole history gives, byte for byte, and
stores the same; its own work reads no older turn from the store.

Two copies of one stored 3,000-turn session, one resumed whole (``history_tail=0``), one
as ``-p`` and the TUI resume it; the same turn on each against a fake OpenAI server."""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.engine.open_store import HISTORY_TAIL
from milk_tui.facade.application import start
from milk_tui.model.turn_history import History
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "storage"))
from test_long_session_tail import _history  # noqa: E402


def _config(url: str) -> MilkConfig:
    agent = AgentConfig(name="cheap", provider="local", url=url, model="small")
    big = AgentConfig(name="big", provider="local", url=url, model="large")
    return MilkConfig(agent="cheap", escalation_agent="big", agents=[agent, big])


def _stored_session(cwd: Path, url: str, seed: int, until: float) -> None:
    """The session of ``cwd``, written through the store's commit path."""
    app = start(cwd=str(cwd), config=_config(url))
    store, s = app.runtime.store, app.runtime.session
    turns = _history(seed, until)
    for k in range(0, len(turns), 500):
        s.history.extend(turns[k : k + 500])
        store.commit_turns(s, turns[k : k + 500])
    s.primary_nonce = s.escalation_nonce = "fixed-nonce"  # else each run draws its own
    store.save_meta(s)
    app.close_database()


def _rows(db: Path) -> list[Any]:
    with sqlite3.connect(db) as c:
        return c.execute(
            "SELECT role, agent, content, tool_calls, context_text FROM turns ORDER BY id"
        ).fetchall()


@pytest.mark.parametrize(("seed", "until"), [(7, 1.0), (8, 0.5)])
@pytest.mark.parametrize("force", ["primary", "escalation", None])
async def test_a_turn_on_a_long_session_sends_and_stores_what_the_whole_one_does(
    tmp_path: Path, milk_home: Path, monkeypatch: pytest.MonkeyPatch, seed: int, until: float,
    force: Any,
) -> None:  # fmt: skip
    cwd = tmp_path / "proj"
    cwd.mkdir()
    requests: dict[str, list[bytes]] = {}
    with FakeOpenAIServer() as srv:
        _stored_session(cwd, srv.url, seed, until)
        homes = {"whole": tmp_path / "whole", "tail": tmp_path / "tail"}
        for home in homes.values():
            shutil.copytree(milk_home, home)
        pages: dict[str, int] = {}
        for name, home in homes.items():
            monkeypatch.setenv("MILK_HOME", str(home))
            srv.requests.clear()
            srv.enqueue(FakeReply(text=["The answer, again."]))
            tail = 0 if name == "whole" else HISTORY_TAIL
            app = start(cwd=str(cwd), config=_config(srv.url), history_tail=tail)
            try:
                held = len(app.runtime.session.history) - app.runtime.session.unread
                assert held == (tail or len(app.runtime.session.history))
                out = await app.run_turn("How does the router decide, again?", force=force)
                assert out.ok, out
                await app.consolidate()
                h = app.runtime.session.history
                assert isinstance(h, History)
                pages[name] = h.pages_read
            finally:
                await app.aclose()
            requests[name] = [r.body for r in srv.chat_requests]
    assert requests["tail"] == requests["whole"] and requests["whole"]
    sent = json.loads(requests["whole"][-1])["messages"]
    assert len(sent) > 20  # the history's turns, not only the prompt
    db = "milk.db"
    assert _rows(homes["tail"] / db) == _rows(homes["whole"] / db)
    if force == "primary":  # its context, bricks and counts: the tail and the store's counts
        assert pages["tail"] == 0
