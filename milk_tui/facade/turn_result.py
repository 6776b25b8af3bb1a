"""How a turn ended, as the front ends get it (the details arrived as bus events)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from milk_tui.engine.turn_scratch import TurnOutcome


@dataclass(frozen=True)
class TurnResult:
    """How a turn ended (the details arrived as bus events while it ran)."""

    ok: bool
    cancelled: bool = False
    error: str = ""
    text: str = ""

    @staticmethod
    def of(outcome: TurnOutcome) -> TurnResult:
        return TurnResult(outcome.ok, outcome.cancelled, outcome.error, outcome.text)


def as_result(inner: asyncio.Task[TurnOutcome]) -> asyncio.Task[TurnResult]:
    """A task with the turn's ``TurnResult``, for the engine's task with its outcome."""

    async def result() -> TurnResult:
        return TurnResult.of(await inner)

    return asyncio.create_task(result())
