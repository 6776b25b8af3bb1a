"""How things look and leaving: /think, /theme, /export, /help, /quit."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from milk_tui.tui.slash.base import SlashGroup
from milk_tui.tui.transcript import export_text

if TYPE_CHECKING:
    pass


class PresentationCommands(SlashGroup):
    async def cmd_think(self, arg: str) -> None:
        a = arg.strip().lower()
        if a in ("on", "show", "true", "1"):
            self.screen.set_thinking(True)
        elif a in ("off", "hide", "false", "0"):
            self.screen.set_thinking(False)
        elif not a:
            self.screen.set_thinking(not self.screen.milk.ui_state.show_thinking)
        else:
            raise ValueError("usage: /think [on|off]")

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
        from milk_tui.tui.widgets.conversation import Conversation

        path = Path(arg.strip() or f"milk-transcript-{self.facade.session_id[:8]}.txt").expanduser()
        if not path.is_absolute():
            path = Path(self.facade.cwd) / path
        items = self.screen.query_one(Conversation).items
        try:
            # A transcript holds whatever the session held: created 0600 like the database
            # (docs/adr/0015-no-secret-on-disk.md); an existing file keeps its mode.
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(export_text(items))
        except OSError as e:
            raise ValueError(f"cannot write {path}: {e.strerror or e}") from None
        self.say(f"exported {len(items)} blocks to {path}")

    async def cmd_help(self, arg: str) -> None:
        self.screen.action_help()

    async def cmd_quit(self, arg: str) -> None:
        await self.screen.app.run_action("quit")
