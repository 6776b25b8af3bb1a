"""How things look and leaving: /think, /theme, /export, /help, /quit."""

from __future__ import annotations

from milk_tui.tui.slash.base import SlashGroup


class PresentationCommands(SlashGroup):
    async def cmd_think(self, arg: str) -> None:
        a = arg.strip().lower()
        if a in ("on", "show", "true", "1"):
            self.screen.set_thinking(True)
        elif a in ("off", "hide", "false", "0"):
            self.screen.set_thinking(False)
        elif not a:
            shown = self.screen.milk.ui_state.show_thinking
            self.say(
                f"thinking is {'shown' if shown else 'hidden'} — /think "
                f"{'off hides' if shown else 'on shows'} it; Ctrl+T toggles"
            )
        else:
            raise ValueError("usage: /think [on|off]")

    async def cmd_colorize(self, arg: str) -> None:
        from milk_tui.facade.config_keys import save_colorization

        if not arg.strip():
            mode = self.screen.milk.palette.colorization
            self.say(f"colorization: {mode} — /colorize off|fenced|balanced|full")
            return
        mode = await save_colorization(self.facade.runtime, arg)
        self.screen.milk.set_colorization(mode)
        self.say(f"colorization: {mode} (saved)")

    async def cmd_theme(self, arg: str) -> None:
        name = arg.strip()
        app = self.screen.app
        if not name:
            app.action_change_theme()
            return
        if name not in app.available_themes:
            raise ValueError(
                f"unknown theme '{name}' (known: {', '.join(sorted(app.available_themes))})"
            )
        app.theme = name
        self.say(f"theme: {name}")

    async def cmd_export(self, arg: str) -> None:
        from milk_tui.facade.transcript import parse_export

        done = await self.facade.transcript.export(*parse_export(arg))
        self.say(f"exported {done.records} records as {done.fmt} to {done.path}")

    async def cmd_help(self, arg: str) -> None:
        self.screen.action_help()

    async def cmd_quit(self, arg: str) -> None:
        await self.screen.app.run_action("quit")
