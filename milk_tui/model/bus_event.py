"""The base of every bus event (model/events.py lists them all)."""

from __future__ import annotations

import time
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Slot = Literal["primary", "escalation"]
"""Wire names of the two agent slots (the ``agent`` field of the Go-compatible session JSON)."""


class BusEvent(BaseModel):
    # Each event class builds its validator on first use (or in ``build_events`` below):
    # building all of them while importing costs start-up ~12–20 ms.
    model_config = ConfigDict(frozen=True, defer_build=True)
    ts: float = Field(default_factory=time.time)
    session_id: str = ""
    type: str
    """The event's snake_case name: every event narrows it to its own literal."""


def build_events() -> None:
    """Build every event class's validator now (they are deferred, see ``BusEvent``), e.g.
    in a thread once a UI is up, so that no turn pays for the first of each."""
    todo: list[type[BusEvent]] = [BusEvent]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        cls.model_rebuild()
