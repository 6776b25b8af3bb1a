"""Tool permissions: /permissions, /skip-permissions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from milk_tui.tui.slash.base import SlashGroup

if TYPE_CHECKING:
    pass


class PermissionCommands(SlashGroup):
    async def cmd_permissions(self, arg: str) -> None:
        perms = self.facade.permissions
        verb, _, rest = arg.partition(" ")
        tools = rest.split()
        if verb == "revoke" and tools:
            result = perms.revoke(tools)
            for line in result.lines(perms.cwd):
                self.say(line, "notice" if result.revoked else "warning")
            return
        if verb == "grant" and tools:
            left = perms.grant(tools)
            self.say(f"granted {', '.join(tools)}; allowed here: {', '.join(left)}")
            return
        if verb:
            raise ValueError("usage: /permissions [revoke|grant <tool>...]")
        listed = perms.show()
        for warning in listed.warnings:
            self.say(warning, "warning")
        if listed.tools:
            self.say(f"allowed without asking in {listed.cwd}: {', '.join(listed.tools)}")
            self.say("/permissions revoke <tool> to be asked again")
        else:
            self.say(f"no tools allowed without asking in {listed.cwd}")
        if listed.claude_rules:
            rules = ", ".join(listed.claude_rules)
            self.say(f"Claude CLI rules (.claude/settings.local.json): {rules}")
        if perms.skip:
            self.say("skip-permissions is on: every tool call runs without asking", "warning")

    async def cmd_skip_permissions(self, arg: str) -> None:
        from milk_tui.tui.widgets.status_line import StatusLine

        a = arg.strip().lower()
        if not a:
            state = "on" if self.facade.permissions.skip else "off"
            self.say(f"skip-permissions is {state} for this session (/skip-permissions on|off)")
            return
        if a not in ("on", "off"):
            raise ValueError("usage: /skip-permissions on|off")
        self.facade.permissions.skip = a == "on"
        self.screen.query_one(StatusLine).set_skip_permissions(a == "on")
        if a == "on":
            self.say("skip-permissions on: both agents run every tool without asking", "warning")
        else:
            self.say("skip-permissions off: tools ask again")
