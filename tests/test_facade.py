"""The application facade: typed results, SessionChanged timing, worker-thread reads."""

from __future__ import annotations

import threading
from pathlib import Path

from milk_tui.engine.cooperative import CooperativeAgent
from milk_tui.facade.application import start
from milk_tui.facade.facts import FactQuery
from milk_tui.model import events as ev
from milk_tui.model.session import TokenUsage


async def test_a_turn_announces_the_session_view_just_before_it_ends(tmp_path: Path) -> None:
    app = start(cwd=str(tmp_path), demo=True, session_name="facade")
    seen: list[ev.BusEvent] = []
    app.add_listener(seen.append)
    try:
        before = app.session_view()
        assert (before.name, before.records, before.exchanges) == ("facade", 0, 0)
        result = await app.run_turn("what is a monad?", force="primary")
        assert result.ok and not result.cancelled and result.text
        kinds = [type(e) for e in seen]
        end = kinds.index(ev.TurnCompleted)
        assert kinds[end - 1] is ev.SessionChanged and kinds.count(ev.SessionChanged) == 1
        view = seen[end - 1]
        assert isinstance(view, ev.SessionChanged)
        assert (view.records, view.exchanges, view.last_user_agent) == (2, 1, "primary")
        assert view.session_id == app.session_id and view.cwd == str(tmp_path)
        assert view.tokens and all(isinstance(t, TokenUsage) for t in view.tokens)
        assert [t.content for t in app.history()][0] == "what is a monad?"
    finally:
        await app.aclose()


async def test_sessions_new_switch_and_missing(tmp_path: Path) -> None:
    app = start(cwd=str(tmp_path), demo=True)
    seen: list[ev.BusEvent] = []
    app.add_listener(seen.append)
    try:
        first = app.session_id
        view = await app.new_session("second")
        assert view.name == "second" and app.session_id != first
        assert isinstance(seen[-1], ev.SessionChanged) and seen[-1].name == "second"
        back = await app.switch_session(first)
        assert back is not None and back.session_id == first == app.session_id
        assert await app.switch_session("no-such-session") is None
        listed = await app.sessions.arecent(str(tmp_path))
        assert {s.name for s in listed} >= {"second"}
        await app.sessions.arename(listed[0].id, "renamed")
        assert app.sessions.load(listed[0].id).name == "renamed"
    finally:
        await app.aclose()


async def test_fact_reads_run_in_a_worker_thread(tmp_path: Path) -> None:
    app = start(cwd=str(tmp_path), demo=True)
    threads: set[int] = set()
    facts = app.facts
    real_count = facts.count

    def count(query: FactQuery, session_id: str | None) -> int:
        threads.add(threading.get_ident())
        return real_count(query, session_id)

    facts.count = count  # type: ignore[method-assign]
    try:
        p = facts.remember("the build server is called hopper", session_id=app.session_id)
        assert p is not None and facts.get(p.id) == p
        assert await facts.acount(FactQuery(text="hopper"), app.session_id) == 1
        assert threads and threading.get_ident() not in threads
        page = await facts.apage(FactQuery(), app.session_id, 0, 10)
        assert [x.id for x in page] == [p.id]
        assert facts.pin(p.id).core and facts.undo() is not None
        assert facts.forget(p.id) and facts.get(p.id) is None
    finally:
        await app.aclose()


async def test_cooperative_agents_are_a_start_option(tmp_path: Path) -> None:
    plain = start(cwd=str(tmp_path), demo=True)
    coop = start(cwd=str(tmp_path), demo=True, cooperative=True)
    try:
        assert not isinstance(plain.runtime.dispatcher.primary.agent, CooperativeAgent)
        assert isinstance(coop.runtime.dispatcher.primary.agent, CooperativeAgent)
        assert isinstance(coop.runtime.dispatcher.escalation.agent, CooperativeAgent)
    finally:
        await plain.aclose()
        await coop.aclose()


async def test_another_processs_write_reloads_only_a_session_it_changed(
    tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """The change check reads the session row's version (one indexed read), not the whole
    session: a fact written elsewhere reloads nothing, a turn committed elsewhere reloads
    the session held tail first, as at resume."""
    from milk_tui.config.paths import database_file
    from milk_tui.engine.open_store import HISTORY_TAIL
    from milk_tui.model.session import Session, Turn
    from milk_tui.storage.db import Database
    from milk_tui.storage.sessions import SessionStore

    app = start(cwd=str(tmp_path), demo=True, session_name="long")
    rt = app.runtime
    try:
        live = rt.dispatcher.session
        turns = [
            Turn(role="user" if i % 2 == 0 else "assistant", content=f"turn {i}", agent="primary")
            for i in range(2 * HISTORY_TAIL + 10)
        ]
        live.history.extend(turns)
        rt.store.commit_turns(live, turns)

        def whole_session(self: Session) -> str:
            raise AssertionError("the check serialised the whole session")

        monkeypatch.setattr(Session, "to_go_json", whole_session)
        other = Database(database_file())  # another process's connection
        try:
            with other.transaction() as db:
                db.execute("UPDATE sessions SET last_used = last_used + 1 WHERE id = ?", (live.id,))
            changed = await app.check_external_changes()
            assert changed and rt.dispatcher.session is live  # nothing of it changed

            theirs = SessionStore(other).load(live.id, tail=8)
            assert theirs is not None
            added = [
                Turn(role="user", content="from a -p run"),
                Turn(role="assistant", content="ok"),
            ]
            theirs.history.extend(added)
            SessionStore(other).commit_turns(theirs, added)
        finally:
            other.close()
        assert await app.check_external_changes()
        reloaded = rt.dispatcher.session
        assert reloaded is not live
        assert reloaded.records == len(turns) + 2
        assert reloaded.unread == reloaded.records - HISTORY_TAIL  # its tail, as at resume
        assert reloaded.history[-2].content == "from a -p run"
    finally:
        await app.aclose()
