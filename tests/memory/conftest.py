"""Fixtures for memory tests: a fresh database, bus and service per test."""

from __future__ import annotations

from pathlib import Path

import pytest

import milk_tui.memory.store  # noqa: F401  (registers the percept migration)
from milk_tui.engine.bus import EventBus
from milk_tui.memory.service import MemoryService
from milk_tui.memory.store import PerceptStore
from milk_tui.model.events import BusEvent
from milk_tui.storage.db import Database


@pytest.fixture
def db(tmp_path: Path) -> Database:
    d = Database(tmp_path / "milk.db")
    yield d
    d.close()


@pytest.fixture
def bus() -> EventBus:
    return EventBus()


@pytest.fixture
def events(bus: EventBus) -> list[BusEvent]:
    got: list[BusEvent] = []
    bus.add_listener(got.append)
    return got


@pytest.fixture
def mem(db: Database, bus: EventBus) -> MemoryService:
    return MemoryService(PerceptStore(db), bus)
