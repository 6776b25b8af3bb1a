"""Answering permission questions: the policy first, then the user on the bus.

Every decision that was not a free read is published as ``PermissionDecided`` (so print
mode's stream-json carries it); a question to the user goes out as ``PermissionRequested``
and waits for ``answer``.  Cancelling the turn while it waits denies it.
"""

from __future__ import annotations

import asyncio
import uuid

from milk_tui.agents.base import PermissionAnswer, PermissionQuestion
from milk_tui.engine.dispatch_state import DispatchState
from milk_tui.engine.permission_policy import (
    Decision,
    decide,
    preview_for,
    runs_freely,
    user_denial_reason,
)
from milk_tui.engine.turn_publisher import TurnPublisher
from milk_tui.model import events as ev
from milk_tui.storage.permission_grants import GrantStore

FREE = PermissionAnswer(True)


class PermissionBroker:
    def __init__(self, state: DispatchState, publisher: TurnPublisher, grants: GrantStore) -> None:
        self._state = state
        self._publisher = publisher
        self.grants = grants
        self._waiters: dict[str, tuple[PermissionQuestion, asyncio.Future[PermissionAnswer]]] = {}

    @property
    def skip_permissions(self) -> bool:
        """The session's ``/skip-permissions`` switch (``--allow-tools`` is the policy)."""
        return self._state.skip_permissions

    @skip_permissions.setter
    def skip_permissions(self, on: bool) -> None:
        self._state.skip_permissions = on

    @property
    def skip(self) -> bool:
        return self._state.permission_policy == "allow" or self._state.skip_permissions

    def granted(self) -> frozenset[str]:
        tools = self.grants.allowed(self._state.cwd)
        for warning in self.grants.take_warnings():
            self._publisher.publish(ev.Notice(level="warning", message=warning))
        return tools

    async def ask(self, q: PermissionQuestion) -> PermissionAnswer:
        if runs_freely(q):
            return FREE
        d = decide(
            q,
            skip=self.skip,
            granted=self.granted(),
            can_ask=self._state.permission_policy == "ask",
        )
        if d is not None:
            return self._decided(q, d)
        rid = uuid.uuid4().hex[:12]
        fut: asyncio.Future[PermissionAnswer] = asyncio.get_running_loop().create_future()
        self._waiters[rid] = (q, fut)
        preview = preview_for(q, self._state.cwd)
        self._publisher.publish(
            ev.PermissionRequested(
                request_id=rid, tool_input=q.tool_input, effect=q.effect, **_who(q),
                outside_paths=q.outside_paths, preview=preview,
            )
        )  # fmt: skip
        try:
            return await fut
        except asyncio.CancelledError:
            self._decided(q, Decision(False, "cancelled", "the turn was cancelled"), rid)
            raise
        finally:
            self._waiters.pop(rid, None)

    def answer(self, request_id: str, answer: PermissionAnswer) -> None:
        waiting = self._waiters.pop(request_id, None)
        if waiting is None or waiting[1].done():
            return
        q, fut = waiting
        if answer.allow and answer.always:
            self.grants.grant(self._state.cwd, [q.tool_name])
            d = Decision(True, "always")
        elif answer.allow:
            d = Decision(True, "user")
        else:
            d = Decision(False, "user", user_denial_reason(answer.reason))
        fut.set_result(self._decided(q, d, request_id))

    def _decided(
        self, q: PermissionQuestion, d: Decision, request_id: str = ""
    ) -> PermissionAnswer:
        self._publisher.publish(
            ev.PermissionDecided(
                request_id=request_id, allowed=d.allowed, how=d.how, reason=d.reason, **_who(q)
            )
        )
        return PermissionAnswer(d.allowed, always=d.how == "always", reason=d.reason)


def _who(q: PermissionQuestion) -> dict[str, str]:
    return {"agent_name": q.agent_name, "tool_name": q.tool_name}
