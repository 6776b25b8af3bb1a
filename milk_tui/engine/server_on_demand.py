"""Servers on demand: an agent whose URL does not answer gets its ``run_cmd`` started, and
the turn waits — with a countdown on the bus — until the server answers, then goes on.

The availability check (``engine/availability.py``) calls ``ensure`` for a slot it found
down; the turn then runs on that agent, or falls back to the other one with the failure
named in one line (``ServerFailed``).  ``/server`` and ``milk-tui server`` use the same
object.  Servers this process launched are stopped on exit (``stop_started``) unless the
agent says ``run_cmd_keep``; the process side is ``agents/local_server.py``.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from milk_tui.agents import local_server as ls
from milk_tui.config.settings import AgentConfig
from milk_tui.model import events as ev

if TYPE_CHECKING:
    import httpx

TICK_S = 0.25
"""Readiness is probed four times a second: a loopback server answers in well under that."""

ServerState = str
"""running (started by milk-tui, answering) / starting (recorded, not answering yet) /
up (answering, not started by milk-tui) / down / taken (something else on the port)."""


@dataclass(frozen=True)
class ServerStatus:
    agent: str
    url: str
    state: ServerState
    pid: int = 0
    log: str = ""
    keep: bool = False


class LocalServers:
    def __init__(
        self, data: Path, publish: Callable[[ev.BusEvent], None], *, tick_s: float = TICK_S
    ) -> None:
        self._data = data
        self._publish = publish
        self._tick = tick_s
        self._started: dict[str, ls.ServerProcess] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._client: httpx.AsyncClient | None = None

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            import httpx  # here, not at the top: the TUI's first frame does not wait for it

            self._client = httpx.AsyncClient(trust_env=False)
        return self._client

    def _reap(self) -> None:
        """Forget servers of ours that exited (reaping them: a zombie still holds its group)."""
        for name, proc in list(self._started.items()):
            if proc.exit_code() is not None:
                del self._started[name]
                proc.record.forget(self._data)

    async def _probe(self, cfg: AgentConfig) -> ls.Probe:
        return await ls.probe(self._http(), cfg.url, cfg.chat_path, dict(cfg.headers))

    # ----- starting -------------------------------------------------------------------------

    async def ensure(self, cfg: AgentConfig) -> bool:
        """True when ``cfg``'s server answers, already or after starting it from ``run_cmd``
        (False at once for an agent without one).  Concurrent calls share one start."""
        if not cfg.run_cmd or not cfg.url:
            return False
        async with self._locks.setdefault(cfg.name, asyncio.Lock()):
            self._reap()
            state = await self._probe(cfg)
            if state == "ready":
                return True
            return await self._bring_up(cfg, state)

    async def _bring_up(self, cfg: AgentConfig, state: ls.Probe) -> bool:
        name = cfg.name
        record = ls.read_record(self._data, name)
        proc: ls.ServerProcess | None = None
        if record is not None and not record.alive():
            record.forget(self._data)
            record = None
        if record is None and state == "other":
            where = urlsplit(cfg.url).netloc.rpartition("@")[2]  # never a password in a line
            return self._fail(
                name,
                f"agent '{name}': {where} is taken by something that is not its server "
                "(no /health or models answer); run_cmd not started",
            )
        if record is None and state == "down":
            try:
                proc = await asyncio.to_thread(
                    ls.launch, name, cfg.run_cmd, cfg.url, self._data, keep=cfg.run_cmd_keep
                )
            except ls.ServerError as e:
                return self._fail(name, f"agent '{name}': {e}")
            self._started[name] = proc
            record = proc.record
        # Otherwise a server is already on its way up (recorded by an earlier start, maybe
        # by another milk-tui, or answering "loading"): wait for it instead of starting one.
        timeout = cfg.run_cmd_timeout_secs
        log = record.log if record else ""
        pid = proc.record.pid if proc else 0
        self._publish(
            ev.ServerStarting(agent=name, url=cfg.url, log=log, timeout_s=timeout, pid=pid)
        )
        try:
            return await self._wait_ready(cfg, record, proc)
        except asyncio.CancelledError:
            if proc is not None:  # the turn was cancelled: leave no half-started server
                await self._stop_process(name)
            raise

    async def _wait_ready(
        self, cfg: AgentConfig, record: ls.ServerRecord | None, proc: ls.ServerProcess | None
    ) -> bool:
        name, timeout = cfg.name, cfg.run_cmd_timeout_secs
        offset = proc.log_offset if proc else 0
        log = Path(record.log) if record else None
        began = time.monotonic()
        shown = -1
        while True:
            if proc is not None and (code := proc.exit_code()) is not None:
                how = f"killed by signal {-code}" if code < 0 else f"exited with code {code}"
            elif proc is None and record is not None and not record.alive():
                how = "exited"
            else:
                how = ""
            if how:
                self._started.pop(name, None)
                if record is not None:
                    record.forget(self._data)
                last = ls.last_log_line(log, offset) if log else ""
                return self._fail(
                    name, f"agent '{name}': run_cmd {how}" + (f": {last}" if last else "")
                )
            if await self._probe(cfg) == "ready":
                after = time.monotonic() - began
                self._publish(ev.ServerReady(agent=name, url=cfg.url, after_s=round(after, 1)))
                return True
            remaining = math.ceil(timeout - (time.monotonic() - began))
            if remaining <= 0:
                return await self._give_up(cfg, record, proc)
            if remaining != shown:
                shown = remaining
                self._publish(ev.ServerCountdown(agent=name, remaining_s=remaining))
            await asyncio.sleep(self._tick)

    async def _give_up(
        self, cfg: AgentConfig, record: ls.ServerRecord | None, proc: ls.ServerProcess | None
    ) -> bool:
        name = cfg.name
        if record is None:
            return self._fail(
                name, f"agent '{name}': server not ready after {cfg.run_cmd_timeout_secs:g} s"
            )
        await asyncio.to_thread(ls.stop, record, proc.popen if proc else None)
        self._started.pop(name, None)
        record.forget(self._data)
        last = ls.last_log_line(Path(record.log), proc.log_offset if proc else 0)
        return self._fail(
            name,
            f"agent '{name}': server not ready after {cfg.run_cmd_timeout_secs:g} s; its "
            "process group was stopped" + (f" (last log line: {last})" if last else ""),
        )

    def _fail(self, name: str, error: str) -> bool:
        self._publish(ev.ServerFailed(agent=name, error=error))
        return False

    # ----- stopping ---------------------------------------------------------------------

    async def stop(self, name: str) -> bool:
        """Stop the agent's recorded server (started here or by another milk-tui process);
        False when none runs."""
        return await self._stop_process(name)

    async def _stop_process(self, name: str) -> bool:
        proc = self._started.pop(name, None)
        record = proc.record if proc else ls.read_record(self._data, name)
        if record is None:
            return False
        stopped = await asyncio.to_thread(ls.stop, record, proc.popen if proc else None)
        record.forget(self._data)
        if stopped:
            self._publish(ev.ServerStopped(agent=record.agent, pid=record.pid))
        return stopped

    async def stop_started(self) -> None:
        """On exit: stop what this process started, except servers configured to stay."""
        for name, proc in list(self._started.items()):
            if not proc.record.keep:
                await self._stop_process(name)
        self._started.clear()  # kept ones: their records stay for `milk-tui server stop`

    def forget_started(self) -> None:
        """Leave what this process started running (``milk-tui server start``)."""
        self._started.clear()

    async def aclose(self) -> None:
        await self.stop_started()
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    # ----- status -----------------------------------------------------------------------

    async def status(self, agents: Iterable[AgentConfig]) -> list[ServerStatus]:
        """Each agent with a ``run_cmd`` (and any other recorded server), with its state."""
        self._reap()
        by_name = {a.name: a for a in agents if a.run_cmd}
        records = {r.agent: r for r in ls.read_records(self._data)}
        out = []
        for name in dict.fromkeys([*by_name, *records]):
            cfg, rec = by_name.get(name), records.get(name)
            if rec is not None and not rec.alive():
                rec.forget(self._data)  # a server that died (or a machine that rebooted)
                rec = None
            url = cfg.url if cfg else (rec.url if rec else "")
            probe = await self._probe(cfg) if cfg else ("ready" if rec else "down")
            if rec is not None:
                state = "running" if probe == "ready" else "starting"
            else:
                state = {"ready": "up", "other": "taken"}.get(probe, "down")
            out.append(
                ServerStatus(
                    agent=name,
                    url=url,
                    state=state,
                    pid=rec.pid if rec else 0,
                    log=rec.log if rec else "",
                    keep=cfg.run_cmd_keep if cfg else (rec.keep if rec else False),
                )
            )
        return out
