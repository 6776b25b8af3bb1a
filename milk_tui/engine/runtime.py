"""Start-up wiring shared by the TUI and print mode: config → database → session → agents → dispatcher.

Choosing agents when nothing is configured: a local OpenAI-compatible server on the usual
ports becomes the primary; otherwise both slots run the demo agents and a notice says so.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from milk_tui.agents.base import Slot
from milk_tui.agents.factory import build_agent
from milk_tui.config.agent_keys import misplaced_key_warnings
from milk_tui.config.load import load_config
from milk_tui.config.paths import data_dir, database_file, ensure_dir
from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.engine.agent_swap import agent_choices, wire_router, with_choices
from milk_tui.engine.bus import EventBus
from milk_tui.engine.cooperative import make_cooperative
from milk_tui.engine.custom_prompt import startup_warnings
from milk_tui.engine.dispatch import AgentSlot, Dispatcher
from milk_tui.memory.service import MemoryService
from milk_tui.memory.store import PerceptStore
from milk_tui.model.session import Session
from milk_tui.storage.db import Database
from milk_tui.storage.sessions import SessionStore

if TYPE_CHECKING:
    from milk_tui.agents.mcp.manager import McpManager
    from milk_tui.engine.server_on_demand import LocalServers
    from milk_tui.engine.telemetry import TurnTelemetry

LOCAL_SERVER_PROBES = (
    ("llama.cpp", "http://127.0.0.1:8080"),
    ("ollama", "http://127.0.0.1:11434"),
)
"""Default ports of llama.cpp's server and Ollama's OpenAI endpoint (Ollama serves it under /v1)."""
PROBE_TIMEOUT_S = 0.3
"""Short: a server on loopback answers in milliseconds; this runs only with no config at all."""

DEMO_PRIMARY = AgentConfig(name="demo-local", provider="demo", model="demo-small")
DEMO_ESCALATION = AgentConfig(name="demo-claude", provider="demo", model="demo-large")


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
    debug_log: Path | None = None
    """The wire log agents write to (``--debug`` or ``debug``); agents built later use it too."""
    agent_choices: dict[Slot, str] = field(default_factory=dict)
    """``--agent`` / ``--escalation-agent`` of this run (engine/agent_swap.py keeps them)."""

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
        make_cooperative(self.dispatcher)

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
        if t is not None:
            await asyncio.to_thread(t.shutdown)
            await asyncio.sleep(0)  # the exporter thread queued its warning on this loop

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


def _probe_local_server() -> AgentConfig | None:
    import httpx  # here, not at module top: ~140 ms the TUI's first screen need not wait for

    for label, base in LOCAL_SERVER_PROBES:
        url = base + "/v1/models"
        try:
            r = httpx.get(url, timeout=PROBE_TIMEOUT_S)
        except httpx.HTTPError:
            continue
        if r.status_code == 200:
            model = ""
            try:
                data = r.json().get("data") or []
                model = data[0].get("id", "") if data else ""
            except (ValueError, AttributeError, IndexError):
                pass
            api_url = base + ("/v1" if label == "ollama" else "")
            chat_path = "/chat/completions" if label == "ollama" else "/v1/chat/completions"
            return AgentConfig(
                name=label, provider="local", url=api_url, model=model, chat_path=chat_path
            )
    return None


def choose_agents(
    cfg: MilkConfig, demo: bool
) -> tuple[AgentConfig | None, AgentConfig, list[str], bool]:
    """Returns (primary, escalation, notes, running_demo).

    The demo agents run only when asked for or when nothing at all is configured: never in
    place of a configured agent that is missing or down, whose turns would otherwise be
    answered with canned text and recorded.  A missing primary leaves that slot empty.
    """
    notes: list[str] = []
    if demo:
        return DEMO_PRIMARY, DEMO_ESCALATION, [], True  # asked for: nothing to warn about
    primary = cfg.primary_agent()
    escalation = cfg.escalation_agent_config()
    if primary is None and not cfg.agents:
        found = _probe_local_server()
        if found is None:
            notes.append(
                "No agents configured and no local server answering on :8080 (llama.cpp) or "
                ":11434 (Ollama) — running the demo agents. Add an [[agents]] entry to "
                "config.toml to use a real model."
            )
            return DEMO_PRIMARY, DEMO_ESCALATION, notes, True
        notes.append(f"using the {found.name} server at {found.url} as the primary agent")
        primary = found
    if primary is None:
        notes.append("no primary agent in agents[]; every turn goes to the escalation agent")
    if escalation.kind == "claude-cli" and not shutil.which(escalation.bin or "claude"):
        notes.append(
            f"escalation agent '{escalation.name}': '{escalation.bin or 'claude'}' not found on "
            "PATH; its turns fall back to the primary agent, or fail if there is none"
        )
    return primary, escalation, notes, False


def _mcp_manager(config: MilkConfig, bus: EventBus, cwd: str) -> McpManager | None:
    """The configured MCP servers (started later, in the background, on the event loop)."""
    if not config.mcp_servers:
        return None
    from milk_tui.agents.mcp.manager import McpManager
    from milk_tui.model import events as ev

    def warn(message: str) -> None:
        bus.publish(ev.Notice(level="warning", message=message))

    return McpManager(config.mcp_servers, log_dir=data_dir() / "mcp", cwd=cwd, on_warning=warn)


def build_runtime(
    *,
    cwd: str | None = None,
    config_path: str | Path | None = None,
    new: bool = False,
    session_name: str = "",
    any_folder: bool = False,
    demo: bool = False,
    debug: bool = False,
    permission_policy: Literal["ask", "allow", "deny"] = "ask",
    config: MilkConfig | None = None,
    cooperative: bool = False,
    skip_broken_config: bool = False,
    agent: str = "",
    escalation_agent: str = "",
) -> Runtime:
    """Open everything a session needs.  ``cooperative`` wraps the agents so their streams
    yield to the event loop often (an interactive UI asks for it; headless runs do not).
    ``agent`` / ``escalation_agent`` choose the two agents for this run (``ConfigError``
    naming the defined agents when one is unknown)."""
    cwd = cwd or os.getcwd()
    warnings: list[str] = []
    used_path: Path | None = None
    if config is None:
        config, warnings, used_path = load_config(config_path, skip_broken_file=skip_broken_config)
    choices = agent_choices(config, agent, escalation_agent)
    config = with_choices(config, choices)
    db = Database(database_file())
    store = SessionStore(db)
    bus = EventBus()
    memory = MemoryService(PerceptStore(db), bus)
    primary_cfg, esc_cfg, notes, running_demo = choose_agents(config, demo)
    debug_log = ensure_dir(data_dir()) / "wire-debug.log" if (debug or config.debug) else None
    primary = (
        build_agent(
            primary_cfg, slot="primary", config=config, other_name=esc_cfg.name, debug_log=debug_log
        )
        if primary_cfg is not None
        else None
    )
    escalation = build_agent(
        esc_cfg,
        slot="escalation",
        config=config,
        other_name=primary_cfg.name if primary_cfg else "",
        debug_log=debug_log,
    )
    session = store.resume(cwd, session_name, new=new, any_folder=any_folder)
    notes += store.take_warnings()  # a stored field that could not be read, named
    from milk_tui.engine.availability import AvailabilityCache

    slots = {"primary": primary, "escalation": escalation}
    availability = AvailabilityCache({k: a for k, a in slots.items() if a is not None})
    primary_slot = AgentSlot("primary", primary_cfg, primary) if primary and primary_cfg else None
    router = wire_router(config, cwd, primary_slot, availability)
    dispatcher = Dispatcher(
        config=config,
        store=store,
        session=session,
        bus=bus,
        cwd=cwd,
        escalation=AgentSlot("escalation", esc_cfg, escalation),
        primary=primary_slot,
        memory=memory,
        router=router,
        availability=availability,
        permission_policy=permission_policy,
    )
    dispatcher.state.mcp = _mcp_manager(config, bus, cwd)
    notes += startup_warnings(dispatcher.state.prompts, config.effective_agents(), cwd)
    notes += misplaced_key_warnings(config.agents)
    telemetry = None
    if config.otel.active:  # the exporter and its SDK load only when configured
        from milk_tui.engine.telemetry import start_telemetry

        telemetry = start_telemetry(config.otel, bus, dispatcher.state.agent)
    if cooperative:
        make_cooperative(dispatcher)
    runtime = Runtime(
        config=config,
        config_path=used_path,
        db=db,
        store=store,
        bus=bus,
        dispatcher=dispatcher,
        memory=memory,
        demo=running_demo,
        startup_notes=[*warnings, *notes],
        telemetry=telemetry,
        debug_log=debug_log,
        agent_choices=choices,
    )
    availability.starter = runtime.start_server
    return runtime
