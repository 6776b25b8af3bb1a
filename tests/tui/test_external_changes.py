"""Another process writes while the TUI is open: the CLI adds a fact, a ``-p`` run adds a
turn to the same session.  The open app notices (focus, or its low-rate check) and shows
both, without touching a turn of its own that is still running."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual import events

from milk_tui.testing.cli_run import run_milk
from milk_tui.testing.waits import describe, until
from milk_tui.tui.app import MilkApp
from milk_tui.tui.screens import main as main_screen
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.facts_pane import FactsPane
from tui.conftest import make_app, settle


def _users(app: MilkApp) -> list[str]:
    assert app.main_screen is not None
    conv = app.main_screen.query_one(Conversation)
    return [it.text for it in conv.items if it.kind == "user"]


def _fact_texts(app: MilkApp) -> list[str]:
    assert app.main_screen is not None
    window = app.main_screen.query_one(FactsPane).browser.window
    return [p.content for page in window.pages.values() for p in page]


async def _wait(pilot, app: MilkApp, cond) -> None:  # noqa: ANN001
    """Settle the app, then wait until ``cond()`` (raising, naming it, if it never holds)."""
    await settle(pilot, app)
    await until(pilot, cond, what=describe(cond))


async def test_focus_picks_up_a_cli_fact_and_a_print_mode_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(main_screen, "EXTERNAL_CHECK_S", 3600.0)  # only focus triggers here
    app = make_app(cwd=str(tmp_path), session="shared")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, app)
        added = await asyncio.to_thread(
            run_milk, "memory", "add", "the deploy target is fly.io", cwd=tmp_path
        )
        assert added.returncode == 0, added.stderr
        turn = await asyncio.to_thread(
            run_milk, "-p", "what is a monad?", "--demo", "--session", "shared", cwd=tmp_path
        )
        assert turn.returncode == 0, turn.stderr
        await pilot.pause()
        assert "what is a monad?" not in _users(app)
        app.post_message(events.AppFocus())
        await _wait(pilot, app, lambda: "what is a monad?" in _users(app))
        await _wait(pilot, app, lambda: "the deploy target is fly.io" in _fact_texts(app))
        assert len(app.facade.history()) == 2


async def test_the_timer_notices_without_focus_and_a_running_turn_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(main_screen, "EXTERNAL_CHECK_S", 0.2)
    app = make_app(cwd=str(tmp_path), session="shared")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, app)
        live = app.runtime.dispatcher.session
        monkeypatch.setattr(type(app.runtime.dispatcher), "busy", property(lambda self: True))
        turn = await asyncio.to_thread(
            run_milk, "-p", "hello there", "--demo", "--session", "shared", cwd=tmp_path
        )
        assert turn.returncode == 0, turn.stderr
        for _ in range(10):
            await pilot.pause(0.1)
        assert app.runtime.dispatcher.session is live  # no reload while a turn runs
        monkeypatch.undo()
        await _wait(pilot, app, lambda: "hello there" in _users(app))
