"""Agents' local inference servers (their ``run_cmd``): /server."""

from __future__ import annotations

from milk_tui.facade.servers import describe
from milk_tui.tui.slash.base import SlashGroup

USAGE = "usage: /server [status|start [NAME]|stop [NAME]]"


class ServerCommands(SlashGroup):
    async def cmd_server(self, arg: str) -> None:
        verb, _, name = arg.strip().partition(" ")
        name = name.strip().removeprefix("for ").strip()  # "/server start for NAME" too
        servers = self.facade.servers
        if verb in ("", "status") and not name:
            rows = await servers.status()
            for r in rows:
                self.say(describe(r))
            if not rows:
                self.say("no agent has a run_cmd; add one to an agent to start its server here")
        elif verb == "start":
            agent = servers.agent(name or servers.default_agent()).name
            # Waiting for readiness takes seconds: a worker, so the countdown and the
            # conversation stay live; the outcome arrives as Server* events.
            self.screen.run_worker(self._start(agent), group="server-start", exit_on_error=False)
        elif verb == "stop":
            stopped = await servers.stop(name or None)
            if not stopped:
                self.say(f"no server of '{name}' is running" if name else "no server is running")
        else:
            raise ValueError(USAGE)

    async def _start(self, agent: str) -> None:
        if await self.facade.servers.start(agent) == "up":
            self.say(f"the server of '{agent}' answers already")
