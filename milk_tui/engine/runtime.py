"""Start-up wiring shared by the TUI and print mode: config → database → session → agents → dispatcher.

The first half (config, database, session, which agents) is ``engine/boot.py``; the TUI
paints its main screen from it and builds the rest here afterwards.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Unpack

from milk_tui.agents.base import Slot
from milk_tui.agents.factory import build_agent
from milk_tui.config.agent_choice import with_choices
from milk_tui.config.mcp import assigned_names, servers_for_agent, servers_to_start
from milk_tui.config.paths import data_dir
from milk_tui.config.settings import MilkConfig
from milk_tui.engine.agent_swap import wire_router
from milk_tui.engine.boot import Boot, BootOptions, open_boot, settle_agents
from milk_tui.engine.bus import EventBus
from milk_tui.engine.cooperative import StreamPacing, make_cooperative
from milk_tui.engine.custom_prompt import startup_warnings
from milk_tui.engine.dispatch import AgentSlot, Dispatcher
from milk_tui.engine.session_agents import chosen_lines, session_choices
from milk_tui.memory.service import MemoryService
from milk_tui.model.session import Session
from milk_tui.storage.db import Database
from milk_tui.storage.sessions import SessionStore

if TYPE_CHECKING:
    from milk_tui.agents.mcp.manager import McpManager
    from milk_tui.engine.metrics_log import MetricsLog
    from milk_tui.engine.server_on_demand import LocalServers
    from milk_tui.engine.telemetry import TurnTelemetry


@dataclass
class Runtime:
    config: MilkConfig
    config_path: Path | None
    db: Database
    store: SessionStore
    bus: EventBus
    dispatcher: Dispatcher
    memory: MemoryService
    demo: bool
    startup_notes: list[str] = field(default_factory=list)
    servers: LocalServers | None = None
    """Agents' ``run_cmd`` servers: started on demand, stopped on exit (``aclose``)."""
    telemetry: TurnTelemetry | None = None
    """OpenTelemetry export, when the ``otel`` config asks for it (engine/telemetry.py)."""
    metrics: MetricsLog | None = None
    """Each turn's figures in the local metrics file (engine/metrics_log.py); None when
    ``otel.metrics`` is false."""
    debug_log: Path | None = None
    """The wire log agents write to (``--debug`` or ``debug``); agents built later use it too."""
    agent_choices: dict[Slot, str] = field(default_factory=dict)
    """The agents chosen over the config's: this run's ``--agent`` / ``--escalation-agent``
    and the session's stored choice (engine/agent_swap.py keeps them)."""
    run_choices: dict[Slot, str] = field(default_factory=dict)
    """``--agent`` / ``--escalation-agent`` alone: what a session without a choice runs."""
    base_config: MilkConfig | None = None
    """The config with ``run_choices`` only (a session's own choice laid over it when it
    is opened); None: ``config`` is that."""
    pacing: StreamPacing = field(default_factory=StreamPacing)
    """What an interactive front end tells the agents' streams (``make_cooperative``)."""

    @property
    def session(self) -> Session:
        return self.dispatcher.session

    def local_servers(self) -> LocalServers:
        """The agents' ``run_cmd`` servers, made on first use (most sessions have none)."""
        if self.servers is None:
            from milk_tui.engine.server_on_demand import LocalServers

            self.servers = LocalServers(data_dir(), self.bus.publish)
        return self.servers

    async def start_server(self, slot: str) -> bool:
        """The availability cache's starter: start the server of the agent now in ``slot``
        (after a switch, too) when it has a ``run_cmd``; True once it answers."""
        d = self.dispatcher
        agent = d.primary if slot == "primary" else d.escalation
        if agent is None or not agent.config.run_cmd:
            return False
        return await self.local_servers().ensure(agent.config)

    def make_cooperative(self) -> None:
        """Let the agents' streams yield to the event loop every few ms (interactive use)."""
        make_cooperative(self.dispatcher, self.pacing)

    async def preconnect(self) -> None:
        """Warm each HTTP agent before the first prompt: its client made off the loop and its
        connection opened by the availability probe, whose "up" the first turn then reuses.
        Silent: a "down" is forgotten again, so the first turn probes and reports it itself."""
        availability = self.dispatcher.availability
        for slot in (self.dispatcher.primary, self.dispatcher.escalation):
            warm = getattr(slot.agent, "preconnect", None) if slot is not None else None
            if slot is None or warm is None:
                continue  # the Claude CLI, Bedrock (boto3 stays unloaded) and the demo
            try:
                await warm()
                if availability is not None and not await availability.check(slot.slot):
                    availability.invalidate(slot.slot)
            except Exception:  # noqa: BLE001 — best effort: the first turn reports a failure
                continue

    async def close_telemetry(self) -> None:
        """Send the last spans (bounded); a failure's warning is published before this
        returns, so a caller's listeners still see it."""
        t, self.telemetry = self.telemetry, None
        m, self.metrics = self.metrics, None
        if m is not None:
            await asyncio.to_thread(m.close)
        if t is not None:
            await asyncio.to_thread(t.shutdown)
        if m is not None or t is not None:
            await asyncio.sleep(0)  # a writer thread queued its warning on this loop

    async def sync_mcp(self, config: MilkConfig) -> dict[str, str]:
        """Apply a reloaded config's MCP servers now: ``{name: added|changed|removed}``
        (``McpManager.sync``); the manager is made when the first server appears."""
        st = self.dispatcher.state
        from milk_tui.agents.claude_cli import ClaudeCliAgent
        from milk_tui.engine.cooperative import CooperativeAgent

        for slot in (self.dispatcher.primary, self.dispatcher.escalation):
            agent = slot.agent if slot is not None else None
            if isinstance(agent, CooperativeAgent):
                agent = agent.inner
            if slot is not None and isinstance(agent, ClaudeCliAgent):  # writes its own list
                names = assigned_names(config, slot.config)
                agent.mcp_servers = servers_for_agent(config.mcp_servers, names)
        if st.mcp is None:
            st.mcp = _mcp_manager(config, self.bus, self.dispatcher.cwd)
            if st.mcp is None:
                return {}
            st.mcp.start()
            return dict.fromkeys(st.mcp.names, "added")
        return await st.mcp.sync(servers_to_start(config))

    async def aclose(self) -> None:
        """Release what start-up opened: each agent's connections, then the database."""
        try:
            if self.servers is not None:
                await self.servers.aclose()
            await self.close_telemetry()
            if self.dispatcher.state.mcp is not None:
                await self.dispatcher.state.mcp.aclose()
            for slot in (self.dispatcher.primary, self.dispatcher.escalation):
                if slot is not None:
                    await slot.agent.aclose()
        finally:
            self.db.close()


def _mcp_manager(config: MilkConfig, bus: EventBus, cwd: str) -> McpManager | None:
    """The MCP servers some agent names (started later, in the background, on the event
    loop); None when there are none, so a run without MCP never imports the SDK."""
    servers = servers_to_start(config)
    if not servers:
        return None
    from milk_tui.agents.mcp.manager import McpManager
    from milk_tui.model import events as ev

    def warn(message: str) -> None:
        bus.publish(ev.Notice(level="warning", message=message))

    return McpManager(servers, log_dir=data_dir() / "mcp", cwd=cwd, on_warning=warn)


def build_runtime(
    *,
    permission_policy: Literal["ask", "allow", "deny"] = "ask",
    cooperative: bool = False,
    **options: Unpack[BootOptions],
) -> Runtime:
    """Open everything a session needs (both halves of start-up at once; ``options`` are
    ``engine/boot.py`` ``open_boot``'s).  ``cooperative`` wraps the agents so their streams
    yield to the event loop often (an interactive UI asks for it; headless runs do not).
    ``agent`` / ``escalation_agent`` choose the two agents for this run (``ConfigError``
    naming the defined agents when one is unknown)."""
    boot = open_boot(**options)
    return finish_runtime(boot, permission_policy=permission_policy, cooperative=cooperative)


def finish_runtime(
    boot: Boot,
    *,
    permission_policy: Literal["ask", "allow", "deny"] = "ask",
    cooperative: bool = False,
) -> Runtime:
    """The second half of start-up: the agents, router and dispatcher over ``boot``'s
    config, session, bus and memory.  Closes the database if it fails."""
    try:
        return _finish(boot, permission_policy, cooperative)
    except BaseException:
        boot.db.close()
        raise


def _finish(
    boot: Boot, permission_policy: Literal["ask", "allow", "deny"], cooperative: bool
) -> Runtime:
    from milk_tui.engine.availability import AvailabilityCache

    found = settle_agents(boot)  # a local server looked for now, before any agent is built
    found += (
        boot.store.take_warnings()
    )  # a stored field of the turns read so far that was unreadable
    choices, base_config = dict(boot.choices), boot.config
    if not boot.demo:  # a resumed session runs the agents it chose (engine/session_agents.py)
        choices, said = session_choices(boot.config, boot.session, boot.choices)
        found += said + chosen_lines(choices, boot.choices)
        if choices != boot.choices:
            boot.config = with_choices(boot.config, choices)
            if "primary" in choices:
                boot.primary = boot.config.primary_agent()
            if "escalation" in choices:
                boot.escalation = boot.config.escalation_agent_config()
    config, cwd, bus = boot.config, boot.cwd, boot.bus
    primary_cfg, esc_cfg = boot.primary, boot.escalation
    primary = (
        build_agent(
            primary_cfg,
            slot="primary",
            config=config,
            other_name=esc_cfg.name,
            debug_log=boot.debug_log,
        )
        if primary_cfg is not None
        else None
    )
    escalation = build_agent(
        esc_cfg,
        slot="escalation",
        config=config,
        other_name=primary_cfg.name if primary_cfg else "",
        debug_log=boot.debug_log,
    )
    slots = {"primary": primary, "escalation": escalation}
    availability = AvailabilityCache({k: a for k, a in slots.items() if a is not None})
    primary_slot = AgentSlot("primary", primary_cfg, primary) if primary and primary_cfg else None
    router = wire_router(config, cwd, primary_slot, availability)
    dispatcher = Dispatcher(
        config=config,
        store=boot.store,
        session=boot.session,
        bus=bus,
        cwd=cwd,
        escalation=AgentSlot("escalation", esc_cfg, escalation),
        primary=primary_slot,
        memory=boot.memory,
        router=router,
        availability=availability,
        permission_policy=permission_policy,
    )
    dispatcher.state.mcp = _mcp_manager(config, bus, cwd)
    notes = found + startup_warnings(dispatcher.state.prompts, config.effective_agents(), cwd)
    telemetry = None
    if config.otel.active:  # the exporter and its SDK load only when configured
        from milk_tui.engine.telemetry import start_telemetry

        telemetry = start_telemetry(config.otel, bus, dispatcher.state.agent)
    from milk_tui.engine.metrics_log import start_metrics_log

    metrics = start_metrics_log(config.otel, bus, data_dir())
    runtime = Runtime(
        config=config,
        config_path=boot.config_path,
        db=boot.db,
        store=boot.store,
        bus=bus,
        dispatcher=dispatcher,
        memory=boot.memory,
        demo=boot.demo,
        startup_notes=[*boot.notes, *notes],
        telemetry=telemetry,
        metrics=metrics,
        debug_log=boot.debug_log,
        agent_choices=choices,
        run_choices=dict(boot.choices),
        base_config=base_config,
    )
    if cooperative:
        runtime.make_cooperative()
    availability.starter = runtime.start_server
    return runtime
