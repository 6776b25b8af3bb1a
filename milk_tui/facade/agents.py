"""The configured agents, managed while the session runs: list and probe them, switch the
primary or the escalation agent for this run, add or remove an entry in the config file,
and reload the config (``/reload`` or the file watch) without losing the session.

A switch lasts for this run and is never written to the file (the config says what the
next run starts with; docs/adr/0022-agents-managed-live.md).  Every change of agents is
applied between turns (engine/agent_swap.py) and announced with ``AgentsChanged``.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from milk_tui.agents.base import Slot
from milk_tui.agents.factory import build_agent
from milk_tui.agents.redact import mask_url_userinfo
from milk_tui.config.agent_choice import SELECTOR_KEY, agent_choices, unknown_agent, with_choices
from milk_tui.config.agent_keys import parse_pairs as parse_pairs  # the form's, re-exported
from milk_tui.config.agent_keys import provider_problem, unknown_keys
from milk_tui.config.agent_keys import typed_value as typed_value
from milk_tui.config.diff import config_diff
from milk_tui.config.load import ConfigError, load_config
from milk_tui.config.mcp import servers_to_start
from milk_tui.config.paths import config_dir
from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.config.writer import add_agent, remove_agent, target_file
from milk_tui.engine.agent_swap import AgentSwap
from milk_tui.engine.runtime import Runtime
from milk_tui.engine.session_agents import (
    SLOTS,
    chosen_lines,
    session_choices,
    store_choice,
    stored_choice,
)
from milk_tui.facade.agent_fallback import fall_back
from milk_tui.facade.views import agent_info
from milk_tui.model import events as ev

PROBE_TIMEOUT_S = 5.0
"""Upper bound on one agent's reachability probe (an HTTP probe has its own, shorter one)."""

SETTLE_S = 0.1
"""A changed file is read once it stayed the same this long (an editor may write it in parts)."""

FileStamp = tuple[int, int] | None
"""(mtime in ns, size) of the config file; None when there is none."""


@dataclass(frozen=True)
class AgentRow:
    """One configured agent as ``/agent`` lists it."""

    name: str
    provider: str
    model: str
    url: str
    roles: tuple[Slot, ...]
    """The slots it runs in now ("primary", "escalation", both or none)."""
    builtin: bool = False
    """The built-in ``claude`` (not in the file)."""


@dataclass(frozen=True)
class ReloadResult:
    ok: bool
    lines: tuple[str, ...]
    """What changed (or why the file was refused), a few lines; empty: nothing to say."""


def _stamp(path: Path | None) -> FileStamp:
    if path is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def entry_problem(entry: dict[str, Any]) -> str:
    """One line when ``entry`` is not a valid new agent entry ("" when it is): an unknown
    key, a provider that is no name (a URL in the wrong field), a value of the wrong type."""
    problem = unknown_keys(list(entry)) or provider_problem(str(entry.get("provider", "")))
    if problem:
        return problem
    try:
        AgentConfig(**entry)
    except ValidationError as e:
        first = e.errors()[0]
        key = ".".join(str(p) for p in first.get("loc", ())) or "entry"
        return f"{key}: {str(first.get('msg', 'invalid value')).removeprefix('Value error, ')}"
    if not str(entry.get("name", "")).strip():
        return "name: an agent needs a name"
    return ""


def check_agent_choice(config_path: str | None, agent: str, escalation_agent: str) -> None:
    """Raise ``ConfigError`` naming the defined agents when ``--agent`` or
    ``--escalation-agent`` names none (the CLI checks before the TUI opens)."""
    agent_choices(load_config(config_path)[0], agent, escalation_agent)


class Agents:
    def __init__(self, runtime: Runtime) -> None:
        self._rt = runtime
        self._swap = AgentSwap(runtime, dict(runtime.agent_choices), self._applied)
        d = runtime.dispatcher
        for s in (d.primary, d.escalation):  # a local server found on its port keeps its slot
            if s is not None and s.config.kind != "demo" and not runtime.config.find_agent(s.name):
                self._swap.outside[s.slot] = s.config
        self._stamp: FileStamp = _stamp(self._watched())
        self._warnings = set(runtime.startup_notes)

    # ----- what is configured -------------------------------------------------------------

    @property
    def config(self) -> MilkConfig:
        """The configuration in force (this run's choices laid over the file's)."""
        return self._rt.config

    @property
    def config_path(self) -> Path | None:
        """The file in use (None when running on defaults)."""
        return self._rt.config_path

    def _watched(self) -> Path:
        """The file in use; with none, the config dir's ``config.toml`` (a file the user may
        create).  Not ``MILK_CONFIG`` when the run was handed a config object instead."""
        return self._rt.config_path or config_dir() / "config.toml"

    def rows(self) -> list[AgentRow]:
        d, cfg = self._rt.dispatcher, self._rt.config
        listed = list(cfg.effective_agents())
        for s in (d.primary, d.escalation):  # the demo agents or a server found on its port
            if s is not None and all(a.name.lower() != s.name.lower() for a in listed):
                listed.append(s.config)
        in_file = {a.name.lower() for a in cfg.agents}
        out = []
        for a in listed:
            roles = tuple(
                s.slot for s in (d.primary, d.escalation) if s and s.name.lower() == a.name.lower()
            )
            out.append(
                AgentRow(
                    a.name,
                    a.provider or "local",
                    a.model,
                    mask_url_userinfo(a.url),  # the screen shows it: no password on it
                    roles,
                    builtin=a.name.lower() == "claude" and "claude" not in in_file,
                )
            )
        return out

    async def probe(self, name: str) -> str:
        """ "up", or "down: why" — a running slot through its cached check, another agent
        through a throw-away instance.  Never raises."""
        d = self._rt.dispatcher
        for s in (d.primary, d.escalation):
            if s is not None and s.name.lower() == name.lower() and d.availability is not None:
                ok = await d.availability.check(s.slot)
                return "up" if ok else f"down: {d.availability.reason(s.slot) or 'not reachable'}"
        ac = self._rt.config.find_agent(name)
        if ac is None:
            return "not configured"
        return await self._probe_config(ac)

    async def probe_entry(self, entry: dict[str, Any]) -> str:
        """ "up", or "down: why" for an entry not in the config yet (``/agent add`` checks
        it before writing it).  Never raises."""
        try:
            ac = AgentConfig(**{k: v for k, v in entry.items() if v not in ("", None)})
        except ValidationError as e:
            return f"down: {e.errors()[0].get('msg', 'invalid entry')}"
        return await self._probe_config(ac)

    async def _probe_config(self, ac: AgentConfig) -> str:
        try:
            agent = build_agent(ac, slot="primary", config=self._rt.config)
        except Exception as e:  # noqa: BLE001 — an entry that cannot even be built is "down"
            return f"down: {e}"
        try:
            warm = getattr(agent, "preconnect", None)
            if warm is not None:
                await warm()  # the HTTP client is made off the loop
            ok = await asyncio.wait_for(agent.available(), PROBE_TIMEOUT_S)
            why = getattr(agent, "unavailable_reason", "") or "not reachable"
            return "up" if ok else f"down: {why}"
        except Exception as e:  # noqa: BLE001 — a probe that fails means "down"
            return f"down: {type(e).__name__}: {e}".rstrip(": ")
        finally:
            await agent.aclose()

    # ----- choosing agents for this run ------------------------------------------------------

    def switch(self, name: str, slot: Slot = "primary") -> str:
        """Run ``name`` in ``slot`` from the next turn on; one line saying what happened.
        Raises ``ValueError`` for an unknown name."""
        problem = unknown_agent(self._rt.config, name)
        if problem:
            raise ValueError(problem)
        found = self._rt.config.find_agent(name)
        assert found is not None
        self._choose(slot, found.name)
        session = self._rt.dispatcher.session
        store_choice(session, slot, found.name)  # resuming the session runs it again
        self._rt.store.save_meta(session)
        applied = self._swap.request(with_choices(self._rt.config, self._swap.choices))
        when = "" if applied else " after the running turn"
        return f"{slot} agent: {found.name}{when} (for this session; the config is unchanged)"

    def _choose(self, slot: Slot, name: str) -> None:
        self._swap.choices[slot] = name
        self._swap.outside.pop(slot, None)

    def session_opened(self) -> list[str]:
        """The live session changed (``/new``, a switch): run the agents it chose, or the
        configured ones; a line per stored choice that was not taken or is now in force."""
        rt = self._rt
        base = rt.base_config or rt.config
        choices, notes = session_choices(base, rt.dispatcher.session, rt.run_choices)
        if choices == self._swap.choices:
            return notes
        self._swap.choices.clear()
        for slot, name in choices.items():
            self._choose(slot, name)
        self._swap.request(with_choices(base, choices))
        return notes + chosen_lines(choices, rt.run_choices)

    def _applied(self, rebuilt: list[Slot]) -> None:
        d = self._rt.dispatcher
        self._rt.bus.publish(
            ev.AgentsChanged(
                session_id=d.session.id,
                primary=d.primary.name if d.primary else "",
                escalation=d.escalation.name if d.escalation else "",
                rebuilt=tuple(rebuilt),
                escalation_missing=agent_info(
                    d.escalation.config if d.escalation else None, ""
                ).missing,
            )
        )
        if rebuilt:
            asyncio.get_running_loop().create_task(self._rt.preconnect())

    # ----- the config file -------------------------------------------------------------------

    async def add(self, entry: dict[str, Any], *, keep_slots: bool = False) -> ReloadResult:
        """Write a new agent entry into the config file in use (``config.toml`` in the config
        dir when there is none), then reload.  A slot running a real agent keeps it; the
        demo agents give way, unless ``keep_slots`` (an entry saved although it did not
        answer: it never takes a slot unasked).  Raises ``ValueError`` with one line."""
        entry = {k: v for k, v in entry.items() if v not in ("", None)}
        problem = entry_problem(entry)
        if problem:
            raise ValueError(problem)
        if self._rt.config.find_agent(entry["name"]) is not None:
            raise ValueError(f"an agent named '{entry['name']}' exists already")
        path = target_file(self._rt.config_path)
        before = {s: self._running_name(s) for s in SLOTS}
        for slot in SLOTS if keep_slots else ():
            running = self.running(slot)
            if running is not None and slot not in self._swap.choices:
                self._swap.outside.setdefault(slot, running)
        try:
            await asyncio.to_thread(add_agent, path, entry)
        except ConfigError as e:
            raise ValueError(str(e)) from None
        result = await self.reload(path)
        lines = list(result.lines)
        for slot in SLOTS:  # the demo agents give way; an agent that answers keeps its slot
            if (name := self._running_name(slot)) != before[slot] and name:
                lines.append(f"{slot} agent now: {name}")
        if entry["name"] not in {self._running_name(s) for s in SLOTS}:
            lines.append(f"/agent switch {entry['name']} runs it as the primary")
        return ReloadResult(result.ok, tuple(lines))

    def _running_name(self, slot: Slot) -> str:
        ac = self.running(slot)
        return ac.name if ac is not None else ""

    async def remove(self, name: str) -> ReloadResult:
        """Take an agent out of the config file, then reload.  A slot it ran falls back to
        an agent that answers (facade/agent_fallback.py), said in the lines.  Raises
        ``ValueError`` for a name that is not in the file."""
        d = self._rt.dispatcher
        path = self._rt.config_path
        found = self._rt.config.find_agent(name)
        if (
            found is None
            or path is None
            or all(a.name.lower() != name.lower() for a in self._rt.config.agents)
        ):
            what = "built in" if found is not None else "not in the config file"
            raise ValueError(f"'{name}': {what}; nothing to remove")
        ran = [s.slot for s in (d.primary, d.escalation) if s and s.name.lower() == name.lower()]
        try:
            await asyncio.to_thread(remove_agent, path, name)
        except ConfigError as e:
            raise ValueError(str(e)) from None
        for slot in ran:  # a choice naming it goes with the reload (said there, not here)
            self._swap.outside.pop(slot, None)
            if stored_choice(d.session, slot).lower() == name.lower():
                store_choice(d.session, slot, "")
                self._rt.store.save_meta(d.session)
        result = await self.reload(path)
        lines = [ln for ln in result.lines if not ln.startswith(f"agent '{name}' is gone")]
        for slot in ran:
            lines.append(await fall_back(self, slot))
        return ReloadResult(result.ok, tuple(lines))

    def run_outside(self, slot: Slot, ac: AgentConfig) -> None:
        """Run ``ac`` (not in the config: a local server found on its port) in ``slot``."""
        self._swap.choices.pop(slot, None)
        self._swap.outside[slot] = ac
        self._swap.request(
            with_choices(self._rt.base_config or self._rt.config, self._swap.choices)
        )

    def run_configured(self, slot: Slot, name: str) -> None:
        """Run the configured agent ``name`` in ``slot`` for this run (a fallback, not a
        choice the session keeps)."""
        self._choose(slot, name)
        self._swap.request(with_choices(self._rt.config, self._swap.choices))

    def running(self, slot: Slot) -> AgentConfig | None:
        s = self._rt.dispatcher.state.agent(slot)
        return s.config if s is not None else None

    async def reload(self, path: Path | None = None) -> ReloadResult:
        """Read the config again and apply it (between turns); an invalid file keeps the old
        config and says why.  Never raises."""
        path = path or self._rt.config_path
        stamp = await asyncio.to_thread(_stamp, path or self._watched())
        try:
            config, warnings, used = await asyncio.to_thread(load_config, path)
        except ConfigError as e:
            self._stamp = stamp
            return ReloadResult(False, (f"config not reloaded, the old one stays: {e}",))
        self._stamp = stamp
        before = servers_to_start(self._rt.config)
        result = self._apply(config, warnings, used)
        if servers_to_start(config) == before:
            return result
        done = await self._rt.sync_mcp(config)
        said = {"added": "added, starting", "changed": "changed, restarting"}
        mcp = [f"mcp server '{n}': {said.get(how, 'removed, stopped')}" for n, how in done.items()]
        return replace(result, lines=result.lines + tuple(mcp))

    def _apply(self, config: MilkConfig, warnings: list[str], used: Path | None) -> ReloadResult:
        old = self._rt.config
        lines: list[str] = []
        dropped: set[str] = set()
        for slot, name in list(self._swap.choices.items()):
            if config.find_agent(name) is None:
                del self._swap.choices[slot]
                dropped.add(SELECTOR_KEY[slot])
                lines.append(f"agent '{name}' is gone from the config; {slot} as configured")
        self._rt.base_config = with_choices(config, self._rt.run_choices)
        config = with_choices(config, self._swap.choices)
        diff = config_diff(old, config)
        diff = replace(diff, keys=tuple(k for k in diff.keys if k not in dropped))  # said above
        lines += diff.lines()
        lines += [w for w in warnings if w not in self._warnings]
        self._warnings |= set(warnings)
        self._rt.config_path = used
        applied = self._swap.request(config)
        if not applied and diff:
            lines.append("the agents change after the running turn")
        return ReloadResult(True, tuple(lines))

    async def check_file(self) -> ReloadResult | None:
        """The file watch: reload when the config file's time or size changed since the last
        look (the first look only remembers them); None when nothing changed."""
        path = self._watched()
        stamp = await asyncio.to_thread(_stamp, path)
        if stamp == self._stamp:
            return None
        await asyncio.sleep(SETTLE_S)
        if await asyncio.to_thread(_stamp, path) != stamp:
            return None  # still being written: the next look reads it whole
        return await self.reload()
