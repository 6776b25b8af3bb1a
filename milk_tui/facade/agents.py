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
from milk_tui.config.agent_choice import SELECTOR_KEY, agent_choices, unknown_agent, with_choices
from milk_tui.config.diff import config_diff
from milk_tui.config.load import ConfigError, load_config
from milk_tui.config.mcp import servers_to_start
from milk_tui.config.paths import config_dir
from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.config.writer import add_agent, remove_agent, target_file
from milk_tui.engine.agent_swap import AgentSwap
from milk_tui.engine.runtime import Runtime
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
    """One line when ``entry`` is not a valid agent entry ("" when it is)."""
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
        self._stamp: FileStamp = _stamp(self._watched())
        self._warnings = set(runtime.startup_notes)

    # ----- what is configured -------------------------------------------------------------

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
                    a.url,
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
        self._swap.choices[slot] = found.name
        applied = self._swap.request(with_choices(self._rt.config, self._swap.choices))
        when = "" if applied else " after the running turn"
        return f"{slot} agent: {found.name}{when} (for this session; the config is unchanged)"

    def _applied(self, rebuilt: list[Slot]) -> None:
        d = self._rt.dispatcher
        self._rt.bus.publish(
            ev.AgentsChanged(
                session_id=d.session.id,
                primary=d.primary.name if d.primary else "",
                escalation=d.escalation.name if d.escalation else "",
                rebuilt=tuple(rebuilt),
            )
        )
        if rebuilt:
            asyncio.get_running_loop().create_task(self._rt.preconnect())

    # ----- the config file -------------------------------------------------------------------

    async def add(self, entry: dict[str, Any]) -> ReloadResult:
        """Write a new agent entry into the config file in use (``config.toml`` in the config
        dir when there is none), then reload.  Raises ``ValueError`` with one line."""
        entry = {k: v for k, v in entry.items() if v not in ("", None)}
        problem = entry_problem(entry)
        if problem:
            raise ValueError(problem)
        if self._rt.config.find_agent(entry["name"]) is not None:
            raise ValueError(f"an agent named '{entry['name']}' exists already")
        path = target_file(self._rt.config_path)
        try:
            await asyncio.to_thread(add_agent, path, entry)
        except ConfigError as e:
            raise ValueError(str(e)) from None
        return await self.reload(path)

    async def remove(self, name: str) -> ReloadResult:
        """Take a non-active agent out of the config file, then reload.  Raises ``ValueError``."""
        d = self._rt.dispatcher
        for s in (d.primary, d.escalation):
            if s is not None and s.name.lower() == name.lower():
                raise ValueError(f"'{s.name}' is the {s.slot} agent; switch to another one first")
        path = self._rt.config_path
        found = self._rt.config.find_agent(name)
        if (
            found is None
            or path is None
            or all(a.name.lower() != name.lower() for a in self._rt.config.agents)
        ):
            what = "built in" if found is not None else "not in the config file"
            raise ValueError(f"'{name}': {what}; nothing to remove")
        try:
            await asyncio.to_thread(remove_agent, path, name)
        except ConfigError as e:
            raise ValueError(str(e)) from None
        return await self.reload(path)

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
