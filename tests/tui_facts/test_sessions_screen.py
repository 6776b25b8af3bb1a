"""Pilot tests for the sessions screen: list (this folder / all), switch, new, rename, delete."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import Input, Static

from milk_tui.facade.sessions import SessionCatalog
from milk_tui.storage.sessions import SessionStore
from milk_tui.testing.waits import until
from milk_tui.tui.screens.confirm_modal import ConfirmModal, TextPromptModal
from milk_tui.tui.sessions_screen import SessionsScreen
from tui_facts.helpers import type_text


class SessionsHost(App[None]):
    def __init__(self, store: SessionStore, cwd: str, current_id: str) -> None:
        super().__init__()
        self.store, self.cwd, self.current_id = store, cwd, current_id
        self.results: list = []

    def compose(self) -> ComposeResult:
        yield Static("main")

    def on_mount(self) -> None:
        self.push_screen(
            SessionsScreen(SessionCatalog(self.store), cwd=self.cwd, current_id=self.current_id),
            self.results.append,
        )


def make(store: SessionStore, tmp_path: Path) -> tuple[str, list[str]]:
    here, there = str(tmp_path / "here"), str(tmp_path / "there")
    ids = [
        store.create(here, "alpha").id,
        store.create(here, "beta").id,
        store.create(there, "elsewhere").id,
    ]
    # last_used decides the order (newest first): alpha newest, then beta
    store.db.query("UPDATE sessions SET last_used = 100 WHERE id = ?", (ids[1],))
    store.db.query("UPDATE sessions SET last_used = 50 WHERE id = ?", (ids[2],))
    return here, ids


def names(screen: SessionsScreen) -> list[str]:
    return [s.name for s in screen.sessions]


async def test_lists_this_folder_then_all(store: SessionStore, tmp_path: Path) -> None:
    here, ids = make(store, tmp_path)
    app = SessionsHost(store, here, ids[0])
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        assert names(screen) == ["alpha", "beta"]
        assert screen.selected().id == ids[0]  # starts on the current session
        await pilot.press("f")
        assert names(screen) == ["alpha", "beta", "elsewhere"]
        assert "all folders" in str(screen.query_one("#sessions-title", Static).render())
        await pilot.press("f")
        assert names(screen) == ["alpha", "beta"]


async def test_switch_dismisses_with_the_session(store: SessionStore, tmp_path: Path) -> None:
    here, ids = make(store, tmp_path)
    app = SessionsHost(store, here, ids[0])
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.press("enter")  # current session: stays open
        assert isinstance(app.screen, SessionsScreen) and app.results == []
        await pilot.press("down", "enter")
        await until(pilot, lambda: app.results == [("switch", ids[1])])
        assert not isinstance(app.screen, SessionsScreen)


async def test_new_asks_for_a_name(store: SessionStore, tmp_path: Path) -> None:
    here, ids = make(store, tmp_path)
    app = SessionsHost(store, here, ids[0])
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.press("n")
        assert isinstance(app.screen, TextPromptModal)
        await type_text(pilot, "gamma")
        await pilot.press("enter")
        await until(pilot, lambda: app.results == [("new", "gamma")])


async def test_rename_writes_the_store(store: SessionStore, tmp_path: Path) -> None:
    here, ids = make(store, tmp_path)
    app = SessionsHost(store, here, ids[0])
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.press("down", "r")
        modal = app.screen
        assert isinstance(modal, TextPromptModal)
        modal.query_one(Input).value = ""
        await pilot.press("enter")  # a blank name is refused
        assert app.screen is modal
        modal.query_one(Input).value = "beta renamed"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, SessionsScreen))
        assert store.load(ids[1]).name == "beta renamed"
        assert names(app.screen) == ["alpha", "beta renamed"]
        assert app.screen.selected().id == ids[1]


async def test_delete_confirms_and_refuses_the_current(store: SessionStore, tmp_path: Path) -> None:
    here, ids = make(store, tmp_path)
    app = SessionsHost(store, here, ids[0])
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.press("d")  # the session in use
        await pilot.pause()
        assert isinstance(app.screen, SessionsScreen) and store.load(ids[0]) is not None
        await pilot.press("down", "d")
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("n")
        assert store.load(ids[1]) is not None
        await pilot.press("d", "y")
        await until(
            pilot, lambda: isinstance(app.screen, SessionsScreen) and names(app.screen) == ["alpha"]
        )
        assert store.load(ids[1]) is None


async def test_escape_closes_without_action(store: SessionStore, tmp_path: Path) -> None:
    here, ids = make(store, tmp_path)
    app = SessionsHost(store, here, ids[0])
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.press("escape")
        await until(pilot, lambda: app.results == [None])
