"""Remote oversight: /setup telegram, /oversight."""

from __future__ import annotations

from milk_tui.tui.slash.base import SlashGroup


class RemoteCommands(SlashGroup):
    async def cmd_setup(self, arg: str) -> None:
        words = arg.lower().split()
        if words[:1] not in (["telegram"], []) or words[1:] not in ([], ["on"], ["off"]):
            raise ValueError("usage: /setup telegram [on|off]")
        from milk_tui.facade.telegram_setup import TelegramSetup, switch

        if words[1:]:
            self.say(await switch(self.facade, words[1] == "on"))
            return
        from milk_tui.tui.screens.telegram_setup_modal import TelegramSetupModal

        def done(line: str | None) -> None:
            self.say(line or "Telegram setup cancelled")

        self.screen.app.push_screen(TelegramSetupModal(TelegramSetup(self.facade)), done)

    async def cmd_oversight(self, arg: str) -> None:
        if arg.strip():
            raise ValueError("usage: /oversight (the switch is remote_oversight.backend)")
        remote = self.facade.remote
        self.say(
            remote.status() if remote is not None else "Telegram oversight off (/setup telegram)"
        )
