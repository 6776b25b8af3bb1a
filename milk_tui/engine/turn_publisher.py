"""A turn's events on the bus, each stamped with the id of the session it belongs to."""

from __future__ import annotations

from typing import Literal

from milk_tui.engine.dispatch_state import DispatchState
from milk_tui.model import events as ev
from milk_tui.model.session import State

NoticeLevel = Literal["info", "warning", "error"]


class TurnPublisher:
    def __init__(self, state: DispatchState) -> None:
        self._state = state

    def publish(self, event: ev.BusEvent) -> None:
        if not event.session_id:
            event = event.replace(session_id=self._state.session.id)
        self._state.bus.publish(event)

    def notice(self, message: str, level: NoticeLevel = "info") -> None:
        self.publish(ev.Notice(level=level, message=message))

    def set_state(self, state: State) -> None:
        s = self._state.session
        prev = s.state
        if prev != state:
            s.state = state
            self.publish(ev.StateChanged(state=state.value, previous=prev.value))

    def state_changed_from(self, previous: State) -> None:
        """Publish the session's state if something other than ``set_state`` changed it."""
        current = self._state.session.state
        if current != previous:
            self.publish(ev.StateChanged(state=current.value, previous=previous.value))

    def need_changed(self, *, rolled_back: bool = False) -> None:
        s = self._state.session
        self.publish(
            ev.NeedChanged(
                need=s.current_need,
                set_at=s.current_need_set_at,
                producer=s.need_producer,
                rolled_back=rolled_back,
            )
        )

    def record_need(self, body: str, producer: str) -> None:
        """An agent stated the user's goal (tag or tool): shown at once, rolled back on failure."""
        if self._state.session.record_need(body, producer=producer):
            self.need_changed()
