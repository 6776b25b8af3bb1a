"""A remembered fact ("percept") and its vocabularies (docs/adr/0005-percepts-in-sqlite-fts5.md)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from milk_tui.model.gojson import rfc3339

DEFAULT_SCOPE = "global"
"""The scope a fact the user adds gets unless they pick another (the TUI's add dialog and
the CLI's ``memory add`` both start from it): a fact is added to be remembered."""


class Producer(enum.StrEnum):
    USER = "user"
    PRIMARY = "primary"
    ESCALATION = "escalation"
    SYSTEM = "system"


class Consumer(enum.StrEnum):
    ALL = "all"
    PRIMARY = "primary"
    ESCALATION = "escalation"


class Scope(enum.StrEnum):
    SESSION = "session"
    GLOBAL = "global"


INITIAL_WEIGHT = {Producer.USER: 0.9, Producer.SYSTEM: 0.4, Producer.PRIMARY: 0.7,
                  Producer.ESCALATION: 0.7}  # fmt: skip
"""What the user says is trusted most, the system's own guesses least."""
CORE_WEIGHT = 1.0
"""Pinned ("core") facts start at, and are pinned to, full confidence."""


def initial_weight(producer: str, core: bool = False) -> float:
    if core:
        return CORE_WEIGHT
    return INITIAL_WEIGHT.get(Producer(producer), INITIAL_WEIGHT[Producer.PRIMARY])


@dataclass
class Percept:
    id: int
    content: str
    producer: str
    consumer: str = Consumer.ALL.value
    scope: str = Scope.SESSION.value
    core: bool = False
    weight: float = 0.7
    created_at: float = 0.0
    updated_at: float = 0.0
    session_id: str = ""
    turn_index: int = 0

    def to_json(self) -> dict[str, Any]:
        """The ``memory list --json`` shape (docs/interfaces.md); times as RFC 3339."""
        return {
            "id": self.id, "content": self.content, "producer": self.producer,
            "consumer": self.consumer, "scope": self.scope, "core": self.core,
            "weight": self.weight, "created_at": rfc3339(self.created_at),
            "updated_at": rfc3339(self.updated_at), "session_id": self.session_id,
            "turn_index": self.turn_index,
        }  # fmt: skip
