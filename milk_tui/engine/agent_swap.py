"""Replacing the configuration and the agents of a running session, between turns.

A new configuration (a reload) or a new choice of agent (``/agent switch``) becomes the
*effective* configuration: the file's, with this run's choices (``--agent``, ``/agent switch``)
laid over ``agent`` / ``escalation_agent``.  Each slot whose agent entry differs from the one
it runs is rebuilt; a slot whose entry is unchanged keeps its agent (and its connections).
The session, its history and its facts are never touched.

Nothing is swapped under a running turn: a request made while one runs is kept (the last
one wins) and applied as soon as the dispatcher is idle again, so the streaming turn reads
the agent it started with to its end.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from milk_tui.agents.base import Agent, Slot
from milk_tui.agents.factory import build_agent
from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.engine.agent_slot import AgentSlot
from milk_tui.engine.availability import AvailabilityCache
from milk_tui.engine.cooperative import CooperativeAgent
from milk_tui.engine.router import Router
from milk_tui.engine.router_classifier import make_agent_classifier

if TYPE_CHECKING:
    from milk_tui.engine.runtime import Runtime

IDLE_POLL_S = 0.02
"""How often a deferred swap looks whether the turn has ended (well under a human pause)."""


def wire_router(
    config: MilkConfig, cwd: str, primary: AgentSlot | None, availability: AvailabilityCache
) -> Router:
    """The router over ``config``: inconclusive prompts are classified by the primary model,
    but only a real model (HTTP / Bedrock); the demo and CLI agents would answer in prose."""
    router = Router(config, cwd)
    if primary is not None and primary.config.kind in ("openai", "bedrock"):
        router.classifier = make_agent_classifier(
            primary.agent,
            available=lambda: availability.check("primary"),
            on_usage=router.classifier_usage.append,  # recorded with the next committed turn
        )
    return router


@dataclass
class AgentSwap:
    """Owns this run's agent choices and applies a configuration to the dispatcher."""

    runtime: Runtime
    choices: dict[Slot, str] = field(default_factory=dict)
    """``--agent`` / ``--escalation-agent`` / ``/agent switch``: slot → agent name."""
    on_applied: Callable[[list[Slot]], None] = lambda _: None
    """Called after each swap with the slots that were rebuilt (the facade publishes)."""
    outside: dict[Slot, AgentConfig] = field(default_factory=dict)
    """Slots running a real agent that is not in the config (a local server found on its
    port): it keeps running until the config names one for the slot or the user switches,
    so adding an agent to the file never takes over a working slot unasked."""
    _pending: MilkConfig | None = None
    _waiter: asyncio.Task[None] | None = None

    @property
    def pending(self) -> bool:
        return self._pending is not None

    def selection(self, config: MilkConfig) -> tuple[AgentConfig | None, AgentConfig]:
        """The entries the two slots run under ``config`` (already carrying the choices).
        With no agents configured at all the demo agents keep running; a local server
        found on its port keeps its slot (``outside``)."""
        d = self.runtime.dispatcher
        demo = d.escalation is not None and d.escalation.config.kind == "demo"
        if not config.agents and not any(self.choices.values()) and demo:
            assert d.escalation is not None
            return (d.primary.config if d.primary else None), d.escalation.config
        primary, escalation = config.primary_agent(), config.escalation_agent_config()
        if "primary" in self.outside and not config.agent:
            primary = self.outside["primary"]
        if "escalation" in self.outside and not config.escalation_agent:
            escalation = self.outside["escalation"]
        return primary, escalation

    def request(self, config: MilkConfig) -> bool:
        """Apply ``config`` now when idle (True), or once the running turn ends (False)."""
        if not self.runtime.dispatcher.busy:
            self._pending = None
            self._apply(config)
            return True
        self._pending = config
        if self._waiter is None or self._waiter.done():
            self._waiter = asyncio.create_task(self._apply_when_idle())
        return False

    async def _apply_when_idle(self) -> None:
        while self._pending is not None:
            if not self.runtime.dispatcher.busy:
                config, self._pending = self._pending, None
                self._apply(config)
                return
            await asyncio.sleep(IDLE_POLL_S)

    def _apply(self, config: MilkConfig) -> None:
        rt, d = self.runtime, self.runtime.dispatcher
        primary_cfg, esc_cfg = self.selection(config)
        cooperative = any(
            isinstance(s.agent, CooperativeAgent) for s in (d.primary, d.escalation) if s
        )
        retired: list[Agent] = []
        rebuilt: list[Slot] = []
        plan: tuple[tuple[Slot, AgentConfig | None, str], ...] = (
            ("primary", primary_cfg, esc_cfg.name),
            ("escalation", esc_cfg, primary_cfg.name if primary_cfg else ""),
        )
        for slot, new_cfg, other in plan:
            current = d.state.agent(slot)
            if (current.config if current else None) == new_cfg:
                continue
            fresh: AgentSlot | None = None
            if new_cfg is not None:
                agent: Agent = build_agent(
                    new_cfg, slot=slot, config=config, other_name=other, debug_log=rt.debug_log
                )
                fresh = AgentSlot(
                    slot, new_cfg, CooperativeAgent(agent, rt.pacing) if cooperative else agent
                )
            if slot == "primary":
                d.primary = fresh
            else:
                d.escalation = fresh
            if current is not None:
                retired.append(current.agent)
            rebuilt.append(slot)
        rt.config = d.config = config
        agents: dict[str, Agent] = {s.slot: s.agent for s in (d.primary, d.escalation) if s}
        availability = AvailabilityCache(agents)  # fresh answers for the agents now in place
        d.availability = availability
        learned = d.router.learned  # the user's corrections outlive a change of agents
        d.router = wire_router(config, d.cwd, d.primary, availability)
        d.router.learned = learned
        for agent in retired:
            asyncio.get_running_loop().create_task(_close(agent))
        self.on_applied(rebuilt)


async def _close(agent: Agent) -> None:
    with contextlib.suppress(Exception):  # its connections go either way; nothing to report
        await agent.aclose()
