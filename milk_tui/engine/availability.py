"""Graceful degradation: which slot can take a turn right now.

``Agent.available()`` may cost a network round trip (an HTTP ``/health`` probe) or a
subprocess (``claude --version``), so answers are cached per slot for ``ttl_s`` seconds
and concurrent checks of one slot share a single probe — never one per turn burst, never
one per token.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from milk_tui.agents.base import Agent, AgentError, Slot

DEFAULT_TTL_S = 30.0
"""Long enough that a busy session probes about twice a minute, short enough that a
server started after milk-tui is picked up before the user wonders why."""


@dataclass
class _Entry:
    ok: bool
    reason: str
    at: float


class AvailabilityCache:
    def __init__(
        self,
        agents: dict[str, Agent],
        ttl_s: float = DEFAULT_TTL_S,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._agents = dict(agents)
        self._ttl = ttl_s
        self._clock = clock
        self._entries: dict[str, _Entry] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self.probes = 0
        """How many times ``available()`` was really called (tests and benches read it)."""
        self.starter: Callable[[str], Awaitable[bool]] | None = None
        """Starts a down slot's own server (``engine/server_on_demand.py``); True when up."""

    def agent_name(self, slot: str) -> str:
        agent = self._agents.get(slot)
        return getattr(agent, "name", "") or slot

    def reason(self, slot: str) -> str:
        e = self._entries.get(slot)
        return e.reason if e else ""

    def invalidate(self, slot: str | None = None) -> None:
        """Forget cached answers (after /agent switch, config reload, or a failed turn)."""
        if slot is None:
            self._entries.clear()
        else:
            self._entries.pop(slot, None)

    def mark_down(self, slot: str, reason: str) -> None:
        """A turn just failed to connect: trust that over a probe for the next TTL."""
        self._entries[slot] = _Entry(False, reason, self._clock())

    async def check(self, slot: str) -> bool:
        agent = self._agents.get(slot)
        if agent is None:
            self._entries[slot] = _Entry(False, "not configured", self._clock())
            return False
        cached = self._fresh(slot)
        if cached is not None:
            return cached.ok
        lock = self._locks.setdefault(slot, asyncio.Lock())
        async with lock:
            cached = self._fresh(slot)  # another waiter may have probed meanwhile
            if cached is not None:
                return cached.ok
            self.probes += 1
            try:
                ok = bool(await agent.available())
                reason = "" if ok else (getattr(agent, "unavailable_reason", "") or "not reachable")
            except Exception as e:  # noqa: BLE001 - a probe that crashes means "down"
                ok, reason = False, f"{type(e).__name__}: {e}"
            self._entries[slot] = _Entry(ok, reason, self._clock())
            return ok

    async def _check_or_start(self, slot: str) -> bool:
        if await self.check(slot):
            return True
        if self.starter is None or not await self.starter(slot):
            return False
        self.invalidate(slot)
        return await self.check(slot)

    def _fresh(self, slot: str) -> _Entry | None:
        e = self._entries.get(slot)
        if e is not None and self._clock() - e.at < self._ttl:
            return e
        return None

    async def apply_fallback(
        self, target: Slot, *, chosen_by_user: bool = False
    ) -> tuple[Slot, str, str | None]:
        """(target, label, notice): reroute a decision when its slot is down.

        Only the chosen slot is probed when it is up; the other one only when needed.
        ``chosen_by_user`` (a pin or a one-turn force): a cached "down" for that slot is
        probed again, so a server that came back answers the next prompt instead of the
        other (maybe paid) agent until the cached verdict expires.
        Both down raises AgentError so the turn fails with one clear message and the app
        keeps running.
        """
        other: Slot = "escalation" if target == "primary" else "primary"
        cached = self._entries.get(target)
        if chosen_by_user and cached is not None and not cached.ok:
            self.invalidate(target)
        if await self._check_or_start(target):
            return target, "", None
        if await self._check_or_start(other):
            notice = (
                f"{target} agent '{self.agent_name(target)}' unavailable "
                f"({self.reason(target)}); using {other} agent "
                f"'{self.agent_name(other)}' instead"
            )
            return other, "fallback", notice
        raise AgentError(
            f"no agent reachable: primary '{self.agent_name('primary')}' "
            f"({self.reason('primary')}), escalation '{self.agent_name('escalation')}' "
            f"({self.reason('escalation')})"
        )
