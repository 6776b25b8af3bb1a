"""MCP servers: /mcp."""

from __future__ import annotations

from milk_tui.tui.slash.base import SlashGroup

DONE = {
    "enable": "enabled",
    "disable": "disabled",
    "reconnect": "reconnecting",
    "auth": "connecting again (an OAuth server opens its sign-in page)",
}
"""The actions on one server and what each answers (``auth`` is the screen's key ``a``)."""


class McpCommands(SlashGroup):
    async def cmd_mcp(self, arg: str) -> None:
        from milk_tui.tui.screens.mcp_screen import McpScreen

        verb, _, name = arg.strip().partition(" ")
        servers = self.facade.mcp
        if verb in ("", "list"):
            self.screen.app.push_screen(McpScreen(servers))
        elif verb in DONE and name.strip():
            ok = getattr(servers, "authenticate" if verb == "auth" else verb)(name.strip())
            done = DONE[verb]
            if not ok and verb in ("reconnect", "enable"):  # added to the file since? read it
                await self.facade.agents.reload()
                servers = self.facade.mcp
                ok = any(s.name.lower() == name.strip().lower() for s in servers.statuses())
                done = "starting (read from the config file)"
            self.say(f"mcp server '{name.strip()}': {done if ok else 'no such server'}")
        elif verb == "tools" and name.strip():
            tools = servers.tools(name.strip())
            if tools is None:
                raise ValueError(f"no mcp server named '{name.strip()}'")
            self.say("\n".join(t.name for t in tools) or f"'{name.strip()}' offers no tools now")
        else:
            raise ValueError("usage: /mcp [list | tools|enable|disable|reconnect|auth <server>]")
