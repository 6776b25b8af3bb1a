"""Whether an agent may use a tool: the configured policy, or the user's answer on the bus."""

from __future__ import annotations

import asyncio
import uuid

from milk_tui.agents.base import PermissionQuestion
from milk_tui.engine.dispatch_state import DispatchState
from milk_tui.engine.turn_publisher import TurnPublisher
from milk_tui.model import events as ev


class PermissionBroker:
    def __init__(self, state: DispatchState, publisher: TurnPublisher) -> None:
        self._state = state
        self._publisher = publisher
        self._waiters: dict[str, asyncio.Future[bool]] = {}

    async def ask(self, q: PermissionQuestion) -> bool:
        policy = self._state.permission_policy
        if policy != "ask":
            return policy == "allow"
        rid = uuid.uuid4().hex[:12]
        fut: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiters[rid] = fut
        self._publisher.publish(
            ev.PermissionRequested(
                request_id=rid,
                agent_name=q.agent_name,
                tool_name=q.tool_name,
                tool_input=q.tool_input,
            )
        )
        try:
            return await fut
        finally:
            self._waiters.pop(rid, None)

    def answer(self, request_id: str, allow: bool) -> None:
        fut = self._waiters.pop(request_id, None)
        if fut is not None and not fut.done():
            fut.set_result(allow)
