"""Every slash command, driven through the prompt like a user would."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from milk_tui.model.session import State
from milk_tui.tui.screens.confirm_modal import ConfirmModal
from milk_tui.tui.screens.help_modal import HelpModal
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.need_pane import NeedPane
from milk_tui.tui.widgets.prompt_input import PromptInput
from milk_tui.tui.widgets.thinking_block import ThinkingBlock
from tui.conftest import make_app, settle, type_and_send


def lines(app, kind: str | None = None) -> list[str]:  # type: ignore[no-untyped-def]
    items = app.main_screen.query_one(Conversation).items
    return [it.text for it in items if kind is None or it.kind == kind]


async def test_escalate_pins_then_primary_unpins() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "/escalate")
        assert app.runtime.dispatcher.flags.pinned_escalate
        await type_and_send(pilot, "hello")
        users = [it for it in app.main_screen.query_one(Conversation).items if it.kind == "user"]
        assert users[-1].agent_name == "demo-claude" and users[-1].extra["label"] == "pinned"
        await type_and_send(pilot, "/primary")
        assert not app.runtime.dispatcher.flags.pinned_escalate
        assert any("pinned to demo-local" in t for t in lines(app, "notice"))


async def test_escalate_with_prompt_and_fresh() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "/escalate explain the bug")
        markers = lines(app, "marker")
        assert markers and markers[-1].startswith("→ demo-claude · fresh start")
        old_sid = app.runtime.dispatcher.session.escalation_session_id
        assert old_sid
        await type_and_send(pilot, "/escalate fresh")
        assert app.runtime.dispatcher.session.force_fresh_escalation
        assert any("starts fresh" in t for t in lines(app, "notice"))


async def test_primary_with_prompt_goes_to_primary() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "/primary refactor everything")
        users = [it for it in app.main_screen.query_one(Conversation).items if it.kind == "user"]
        assert users[-1].agent_name == "demo-local"


async def test_new_session_and_sessions_screen() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "what is a monad?")
        first = app.runtime.dispatcher.session.id
        await type_and_send(pilot, "/new scratch")
        s = app.runtime.dispatcher.session
        assert s.id != first and s.name == "scratch" and not s.history
        assert lines(app, "user") == []
        await type_and_send(pilot, "/sessions")
        from milk_tui.tui.sessions_screen import SessionsScreen

        assert isinstance(app.screen, SessionsScreen)
        app.screen.dismiss(("switch", first))
        await settle(pilot, app)
        assert app.runtime.dispatcher.session.id == first
        assert lines(app, "user") == ["what is a monad?"]


async def test_learn_forget_memory_need() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "/learn the build uses tabs")
        mem = app.runtime.memory
        facts = mem.search("tabs")
        assert len(facts) == 1 and facts[0].producer == "user" and facts[0].scope == "global"
        assert any("learned" in t for t in lines(app, "notice"))
        await type_and_send(pilot, "/forget tabs")
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("y")
        await settle(pilot, app)
        assert mem.search("tabs") == []
        await type_and_send(pilot, "/forget #999")
        assert any("no remembered fact #999" in t for t in lines(app, "error"))
        await type_and_send(pilot, "/memory")
        from milk_tui.tui.facts.screen import FactsScreen

        assert isinstance(app.screen, FactsScreen)
        await pilot.press("escape")
        await type_and_send(pilot, "/need")
        assert any("no current need" in t for t in lines(app, "notice"))
        await type_and_send(pilot, "what is a monad?")
        await type_and_send(pilot, "/need")
        assert any(t.startswith("need: what is a monad") for t in lines(app, "notice"))


async def test_think_theme_export_help_unknown(tmp_path: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "/escalate design a cache")
        block = app.main_screen.query_one(ThinkingBlock)
        assert not block.expanded
        await type_and_send(pilot, "/think on")
        assert block.expanded and app.ui_state.show_thinking
        await type_and_send(pilot, "/think off")
        assert not block.expanded
        await type_and_send(pilot, "/theme milk-light")
        assert app.theme == "milk-light"
        await type_and_send(pilot, "/theme nope")
        assert any("unknown theme 'nope'" in t for t in lines(app, "error"))
        out = tmp_path / "t.txt"
        await type_and_send(pilot, f"/export {out}")
        text = out.read_text()
        assert "❯ design a cache" in text and "demo-claude:" in text
        await type_and_send(pilot, "/help")
        assert isinstance(app.screen, HelpModal)
        await pilot.press("escape")
        await type_and_send(pilot, "/frobnicate")
        assert any("unknown command /frobnicate" in t for t in lines(app, "warning"))
        assert app.runtime.dispatcher.session.history[-1].content != "/frobnicate"


async def test_export_creates_the_transcript_0600(tmp_path: Path) -> None:
    app = make_app()
    old = os.umask(0o022)  # the usual umask, which would make a plain write 0644
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await type_and_send(pilot, "/escalate a secret plan")
            out = tmp_path / "t.txt"
            await type_and_send(pilot, f"/export {out}")
    finally:
        os.umask(old)
    assert "❯ a secret plan" in out.read_text()
    assert stat.S_IMODE(out.stat().st_mode) == 0o600


async def test_quit_command_consolidates_and_exits() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "/quit")
        await pilot.pause()
    assert app.shut_down
    assert app.return_value == 0


async def test_escalation_waiting_state_shown() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "/escalate make a plan for the migration")
        assert app.runtime.dispatcher.session.state == State.ESCALATION_WAITING
        assert "escalation (waiting for your answer)" in app.main_screen.query_one("#status").plain


async def test_need_pane_tracks_changes() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "what is a monad?")
        await type_and_send(pilot, "how do lenses work?")
        pane = app.main_screen.query_one(NeedPane)
        assert app.runtime.dispatcher.session.current_need == "how do lenses work"
        assert pane.earlier == ["what is a monad"]
        assert "current" in str(pane.body.render())


async def test_prompt_refused_while_busy(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("MILK_DEMO_PACE", "0.05")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        box = app.main_screen.query_one(PromptInput)
        box.set_text("/escalate write a long essay")
        await pilot.press("enter")
        await pilot.pause()
        assert app.runtime.dispatcher.busy
        box.set_text("second prompt")
        await pilot.press("enter")
        await pilot.pause()
        assert box.text == "second prompt"  # refused, kept
        assert "agent is responding" in app.main_screen.query_one("#status").plain
        box.set_text("/new")
        await pilot.press("enter")
        assert (
            "/new unavailable while the agent is responding"
            in app.main_screen.query_one("#status").plain
        )
        await pilot.press("ctrl+c")  # cancels the turn
        await settle(pilot, app)
        assert not app.runtime.dispatcher.busy
        assert "[interrupted]" in lines(app, "notice")
        assert app.runtime.dispatcher.session.history == []


async def test_consolidation_at_new_switch_and_exit_then_agents_and_db_closed(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Memory consolidates at /new, at a session switch and at exit; on exit the
    agents' connections and the database are closed on the app's own loop."""
    app = make_app()
    rt = app.runtime
    consolidated: list[str] = []
    real = rt.memory.consolidate
    monkeypatch.setattr(
        rt.memory,
        "consolidate",
        lambda sid, store_max=0: consolidated.append(sid) or real(sid, store_max),
    )
    closed: list[str] = []
    for slot in (rt.dispatcher.primary, rt.dispatcher.escalation):

        async def aclose(name: str = slot.name) -> None:
            closed.append(name)

        monkeypatch.setattr(slot.agent, "aclose", aclose)
    async with app.run_test(size=(120, 40)) as pilot:
        first = rt.dispatcher.session.id
        await type_and_send(pilot, "/new scratch")
        second = rt.dispatcher.session.id
        assert consolidated == [first]
        await type_and_send(pilot, "/sessions")
        app.screen.dismiss(("switch", first))
        await settle(pilot, app)
        assert consolidated == [first, second]
        await pilot.press("ctrl+c", "ctrl+c")  # twice quits
        await pilot.pause()
    assert consolidated == [first, second, first]
    assert sorted(closed) == ["demo-claude", "demo-local"]
    import sqlite3

    import pytest

    with pytest.raises(sqlite3.ProgrammingError):
        rt.db.conn.execute("select 1")
