"""Fixtures for the fact browser and sessions screen: a real MemoryService on a temp DB
and a small host app that mounts one widget and forwards percept bus events to it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pytest_textual_snapshot import SVGImageExtension
from syrupy.assertion import SnapshotAssertion
from textual.app import App, ComposeResult

from milk_tui.engine.bus import EventBus
from milk_tui.facade.facts import Facts
from milk_tui.memory.service import MemoryService
from milk_tui.memory.store import PerceptStore
from milk_tui.storage.db import Database
from milk_tui.storage.sessions import SessionStore
from milk_tui.tui.facts import FactBrowser

FIXED_NOW = 1_767_225_600.0
"""2026-01-01T00:00:00Z: a fixed clock so ages ("5m") in snapshots never drift."""


@pytest.fixture
def bus() -> EventBus:
    return EventBus()


@pytest.fixture
def memory(db: Database, bus: EventBus) -> MemoryService:
    return MemoryService(PerceptStore(db), bus)


@pytest.fixture
def session_id(store: SessionStore, tmp_path: Any) -> str:
    return store.create(str(tmp_path), "facts").id


class Host(App[None]):
    """Mounts a FactBrowser; percept events from the bus reach it as the real app forwards them."""

    CSS = "Screen { layout: vertical; }"

    def __init__(
        self,
        memory: MemoryService,
        session_id: str | None,
        *,
        compact: bool = False,
        clock: Any = None,
        facts: Facts | None = None,
    ) -> None:
        super().__init__()
        self.memory = memory
        self.facts = facts or Facts(memory)
        self.session_id = session_id
        self.compact = compact
        self.clock = clock
        self.jumps: list[FactBrowser.JumpToTurn] = []
        memory.bus.add_listener(self._forward)

    def _forward(self, event: Any) -> None:
        if self.is_running:
            for browser in self.screen_stack[0].query(FactBrowser):
                browser.handle_bus_event(event)

    def compose(self) -> ComposeResult:
        extra = {"clock": self.clock} if self.clock else {}
        yield FactBrowser(self.facts, session_id=self.session_id, compact=self.compact, **extra)

    def on_mount(self) -> None:
        self.query_one(FactBrowser).focus_table()

    def on_fact_browser_jump_to_turn(self, event: FactBrowser.JumpToTurn) -> None:
        self.jumps.append(event)

    @property
    def browser(self) -> FactBrowser:
        return self.screen_stack[0].query_one(FactBrowser)


# ----- snapshots kept in <repo>/snapshots/tui_facts/ (the issue wants them in snapshots/) -----

SNAPSHOT_DIR = Path(__file__).resolve().parents[2] / "snapshots" / "tui_facts"


class RootedSVGExtension(SVGImageExtension):
    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        return str(SNAPSHOT_DIR)


@pytest.fixture
def snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    """``snap_compare`` switches to its SVG extension; hand it ours, which stores at the root."""
    rooted = snapshot.use_extension(RootedSVGExtension)
    rooted.use_extension = lambda extension_class=None: rooted  # type: ignore[method-assign]
    return rooted
