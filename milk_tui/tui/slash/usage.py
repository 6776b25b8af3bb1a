"""Token usage: /usage."""

from __future__ import annotations

from milk_tui.tui.slash.base import SlashGroup

_TABS = {"": "", "session": "session", "folder": "folder", "all": "all"}


class UsageCommands(SlashGroup):
    async def cmd_usage(self, arg: str) -> None:
        from milk_tui.tui.screens.usage_screen import UsageScreen

        tab = _TABS.get(arg.strip().lower())
        if tab is None:
            raise ValueError("usage: /usage [session|folder|all]")
        screen = UsageScreen(self.facade.usage)
        await self.screen.app.push_screen(screen)
        if tab:
            screen.action_scope(tab)
