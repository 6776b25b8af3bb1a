"""Which agent answers: /escalate, /primary, /auto."""

from __future__ import annotations

from typing import TYPE_CHECKING

from milk_tui.tui.slash.base import SlashGroup

if TYPE_CHECKING:
    pass


class RoutingCommands(SlashGroup):
    async def cmd_escalate(self, arg: str) -> None:
        prompt = self.facade.escalate_command(arg)
        if prompt:
            self.screen.submit_prompt(prompt, force="escalate")

    async def cmd_primary(self, arg: str) -> None:
        prompt = self.facade.primary_command(arg)
        if prompt:
            self.screen.submit_prompt(prompt, force="primary")

    async def cmd_auto(self, arg: str) -> None:
        self.facade.auto_command(arg)
