"""How a turn that does not finish ends: the session back to its snapshot, one
``TurnFailed``, and nothing recorded (docs/adr/0001-record-the-user-turn-after-the-agent-answers.md).

A failure the agent's connection caused also marks that agent down, so the next turn
trusts the failed connection over a cached "up" until the next probe.
"""

from __future__ import annotations

import asyncio
import contextlib

from milk_tui.agents.base import AgentError
from milk_tui.engine.agent_slot import AgentSlot
from milk_tui.engine.dispatch_state import DispatchState
from milk_tui.engine.turn_publisher import TurnPublisher
from milk_tui.engine.turn_scratch import SessionSnapshot, TurnOutcome
from milk_tui.model import events as ev


class TurnRollback:
    def __init__(self, state: DispatchState, publisher: TurnPublisher) -> None:
        self._state = state
        self._pub = publisher

    def failed(
        self, slot: AgentSlot, e: Exception, snap: SessionSnapshot | None, prompt: str
    ) -> TurnOutcome:
        """The agent's turn raised ``e``."""
        unreachable = isinstance(e, AgentError) and e.unreachable
        return self.fail(slot, str(e), snap, prompt, unreachable=unreachable)

    def fail(
        self,
        slot: AgentSlot | None,
        error: str,
        snap: SessionSnapshot | None = None,
        prompt: str = "",
        *,
        unreachable: bool = False,
    ) -> TurnOutcome:
        self._restore(snap)
        availability = self._state.availability
        if unreachable and slot is not None and availability is not None:
            availability.mark_down(slot.slot, error)
        self._pub.publish(
            ev.TurnFailed(
                slot=slot.slot if slot else None,
                agent_name=slot.name if slot else "",
                error=error,
                prompt=prompt,
            )
        )
        return TurnOutcome(ok=False, slot=slot.slot if slot else None, error=error)

    def cancelled(
        self, slot: AgentSlot | None, snap: SessionSnapshot | None, prompt: str
    ) -> TurnOutcome:
        """``slot``/``snap`` None: cancelled while routing, before any agent had the turn."""
        task = asyncio.current_task()
        if task is not None:
            with contextlib.suppress(AttributeError):
                task.uncancel()
        self._restore(snap)
        self._pub.publish(
            ev.TurnFailed(
                slot=slot.slot if slot else None,
                agent_name=slot.name if slot else "",
                error="cancelled",
                cancelled=True,
                prompt=prompt,
            )
        )
        return TurnOutcome(
            ok=False, slot=slot.slot if slot else None, error="cancelled", cancelled=True
        )

    def _restore(self, snap: SessionSnapshot | None) -> None:
        if snap is None:
            return
        s = self._state.session
        before_need, prev_state = s.current_need, s.state
        snap.restore(s)
        self._pub.state_changed_from(prev_state)
        if s.current_need != before_need:
            self._pub.need_changed(rolled_back=True)
