"""The first half of start-up: config → database → session → facts, and which agents run.

Enough for the main screen to paint the resumed session before any agent, router or
dispatcher exists (their modules alone are most of the engine's import time);
``engine/runtime.py`` ``finish_runtime`` builds those from a ``Boot`` afterwards, reusing its
database, bus and memory.  Print mode and tests do both halves at once (``build_runtime``).

Choosing agents when nothing is configured: a local OpenAI-compatible server on the usual
ports becomes the primary; otherwise both slots run the demo agents and a notice says so.
Looking for that server (loading httpx, two connections) can wait for the second half
(``probe_later``): the main screen paints with the demo agents, and ``settle_agents``
swaps in a server it finds before any agent is built.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Unpack

from milk_tui.config.agent_choice import Slot, agent_choices, with_choices
from milk_tui.config.agent_keys import misplaced_key_warnings
from milk_tui.config.load import load_config
from milk_tui.config.paths import data_dir, ensure_dir
from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.engine.boot_options import BootOptions, split_options
from milk_tui.engine.bus import EventBus
from milk_tui.engine.open_store import OpenedStore, open_store, start_notes
from milk_tui.memory.service import MemoryService
from milk_tui.model.session import Session
from milk_tui.storage.db import Database
from milk_tui.storage.sessions import SessionStore

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
class Boot:
    """An opened session whose agents are not built yet (``finish_runtime`` builds them)."""

    cwd: str
    config: MilkConfig
    """The file's config with this run's agent choices laid over its selectors."""
    config_path: Path | None
    db: Database
    store: SessionStore
    bus: EventBus
    memory: MemoryService
    session: Session
    primary: AgentConfig | None
    escalation: AgentConfig
    demo: bool
    """The demo agents run (asked for, or nothing configured and no local server)."""
    notes: list[str] = field(default_factory=list)
    """Config warnings and start-up notices, in the order they are shown."""
    choices: dict[Slot, str] = field(default_factory=dict)
    debug_log: Path | None = None
    probe_pending: bool = False
    """Nothing is configured and the local server probe waits for ``settle_agents``."""


def open_boot(**options: Unpack[BootOptions]) -> Boot:
    """Open the config, the database and the session (``build_runtime``'s options but the
    agents'); ``ConfigError`` / ``StorageError`` as it raises them.  The config is read
    first: a broken one is said before the database is touched."""
    store, config = split_options(options)
    configured = configure(**config)
    return joined(open_store(**store), configured)


@dataclass
class Configured:
    """The config half of a ``Boot``: which agents run, and what was said about it."""

    config: MilkConfig
    config_path: Path | None
    primary: AgentConfig | None
    escalation: AgentConfig
    demo: bool
    notes: list[str]
    """The config's warnings and the agents' choice, in the order they are shown."""
    agent_notes: list[str]
    """Keys of an agent entry that belong elsewhere: said after the session's own notes."""
    choices: dict[Slot, str]
    debug_log: Path | None
    probe_pending: bool


def configure(
    *,
    config_path: str | Path | None = None,
    demo: bool = False,
    debug: bool = False,
    config: MilkConfig | None = None,
    skip_broken_config: bool = False,
    agent: str = "",
    escalation_agent: str = "",
    probe_later: bool = False,
) -> Configured:
    """Read the config (``config_path``, or the usual places; ``config``: this one instead;
    ``skip_broken_config``: start without a file that does not parse, with a warning) and
    choose the agents (``demo``: the demo agents; ``agent`` / ``escalation_agent``: this
    run's choices over the config's; ``probe_later``: with nothing configured, the demo
    agents for now while ``settle_agents`` looks for a local server; ``debug``: the wire
    log).  ``ConfigError`` as ``load_config`` raises it."""
    warnings: list[str] = []
    used_path: Path | None = None
    if config is None:
        config, warnings, used_path = load_config(config_path, skip_broken_file=skip_broken_config)
    choices = agent_choices(config, agent, escalation_agent)
    config = with_choices(config, choices)
    pending = probe_later and not demo and nothing_configured(config)
    # Looking waits (``settle_agents``): the demo agents stand in until then.
    primary, escalation, notes, running_demo = choose_agents(config, demo or pending)
    debug_log = ensure_dir(data_dir()) / "wire-debug.log" if (debug or config.debug) else None
    return Configured(
        config=config,
        config_path=used_path,
        primary=primary,
        escalation=escalation,
        demo=running_demo,
        notes=[*warnings, *notes],
        agent_notes=misplaced_key_warnings(config.agents),
        choices=choices,
        debug_log=debug_log,
        probe_pending=pending,
    )


def joined(opened: OpenedStore, configured: Configured) -> Boot:
    """The two halves of start-up as one ``Boot``."""
    c = configured
    return Boot(
        cwd=opened.cwd,
        config=c.config,
        config_path=c.config_path,
        db=opened.db,
        store=opened.store,
        bus=opened.bus,
        memory=opened.memory,
        session=opened.session,
        primary=c.primary,
        escalation=c.escalation,
        demo=c.demo,
        notes=start_notes(c.notes, opened, c.agent_notes),
        choices=c.choices,
        debug_log=c.debug_log,
        probe_pending=c.probe_pending,
    )


def nothing_configured(cfg: MilkConfig) -> bool:
    """No agent at all: the case in which ``choose_agents`` looks for a local server."""
    return cfg.primary_agent() is None and not cfg.agents


def settle_agents(boot: Boot) -> list[str]:
    """The probe ``open_boot`` left for later: a local server found becomes the primary
    (``boot`` is updated); returns the notice to show, as ``choose_agents`` words it."""
    if not boot.probe_pending:
        return []
    boot.probe_pending = False
    primary, escalation, notes, running_demo = choose_agents(boot.config, False)
    boot.primary, boot.escalation, boot.demo = primary, escalation, running_demo
    return notes


def probe_local_server() -> AgentConfig | None:
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
    if nothing_configured(cfg):
        found = probe_local_server()
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
