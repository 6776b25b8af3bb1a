"""MCP servers: /mcp."""

from __future__ import annotations

from typing import TYPE_CHECKING

from milk_tui.tui.slash.base import SlashGroup

if TYPE_CHECKING:
    pass


class McpCommands(SlashGroup):
    async def cmd_mcp(self, arg: str) -> None:
        from milk_tui.tui.screens.mcp_screen import McpScreen

        verb, _, name = arg.strip().partition(" ")
        servers = self.facade.mcp
        if not verb:
            self.screen.app.push_screen(McpScreen(servers))
        elif verb in ("enable", "disable", "reconnect") and name.strip():
            ok = getattr(servers, verb)(name.strip())
            done = {"enable": "enabled", "disable": "disabled", "reconnect": "reconnecting"}[verb]
            self.say(f"mcp server '{name.strip()}': {done if ok else 'no such server'}")
        elif verb == "tools" and name.strip():
            tools = servers.tools(name.strip())
            if tools is None:
                raise ValueError(f"no mcp server named '{name.strip()}'")
            self.say("\n".join(t.name for t in tools) or f"'{name.strip()}' offers no tools now")
        else:
            raise ValueError("usage: /mcp [tools|enable|disable|reconnect <server>]")
