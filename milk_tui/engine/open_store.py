"""The store half of start-up: the database, the session to resume and the facts, with no
config (``engine/boot.py`` adds the config half; the TUI can paint from this one first)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from milk_tui.config.paths import database_file
from milk_tui.engine.bus import EventBus
from milk_tui.memory.service import MemoryService
from milk_tui.memory.store import PerceptStore
from milk_tui.model.session import Session
from milk_tui.storage.db import Database
from milk_tui.storage.sessions import SessionStore


@dataclass
class OpenedStore:
    cwd: str
    db: Database
    store: SessionStore
    bus: EventBus
    memory: MemoryService
    session: Session
    notes: list[str] = field(default_factory=list)
    """A stored field that could not be read, named (the store's warnings)."""


HISTORY_TAIL = 512
"""Turns a resumed session holds from the start: more than a context budget and a screen
take (a turn's context walks newest first and stops at its budget); older ones are paged in
from the store when a reader reaches them (model/turn_history.py)."""


def start_notes(
    config_notes: Sequence[str], opened: OpenedStore, agent_notes: Sequence[str]
) -> list[str]:
    """Start-up's notes in the order they are said: the config's warnings and the agents'
    choice, then the store's, then agent keys in the wrong place."""
    return [*config_notes, *opened.notes, *agent_notes]


def open_store(
    *,
    cwd: str | None = None,
    new: bool = False,
    session_name: str = "",
    any_folder: bool = False,
    history_tail: int = HISTORY_TAIL,
) -> OpenedStore:
    """Open the database and resume the session of ``cwd`` (the current folder): the one
    named ``session_name`` (looked for in every folder with ``any_folder``), else the
    latest; ``new`` starts one instead.  ``history_tail``: read only its last turns now
    (older ones are read when something reaches them, model/turn_history.py).  ``StorageError`` as the
    store raises it; the database is closed again then."""
    cwd = cwd or os.getcwd()
    db = Database(database_file())
    try:
        store = SessionStore(db)
        bus = EventBus()
        memory = MemoryService(PerceptStore(db), bus)
        session = store.resume(cwd, session_name, new=new, any_folder=any_folder, tail=history_tail)
    except BaseException:
        db.close()
        raise
    return OpenedStore(cwd, db, store, bus, memory, session, store.take_warnings())
