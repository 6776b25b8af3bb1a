"""Sessions: /new and the sessions screen."""

from __future__ import annotations

from typing import TYPE_CHECKING

from milk_tui.tui.slash.base import SlashGroup

if TYPE_CHECKING:
    from milk_tui.tui.sessions_screen import SessionAction


class SessionCommands(SlashGroup):
    async def cmd_new(self, arg: str) -> None:
        self.screen.load_session(await self.facade.new_session(arg.strip()))

    async def cmd_sessions(self, arg: str) -> None:
        await self.open_sessions()

    async def open_sessions(self) -> None:
        from milk_tui.tui.sessions_screen import SessionsScreen

        a = self.facade

        async def done(result: SessionAction | None) -> None:
            if not result:
                return
            action, value = result
            if a.busy:
                self.say("cannot switch sessions while a turn is running", "warning")
                return
            if action == "switch" and value != a.session_id:
                view = await a.switch_session(value)
                if view is None:
                    self.say(f"session {value[:8]} no longer exists", "error")
                    return
                self.screen.load_session(view)
            elif action == "new":
                self.screen.load_session(await a.new_session(value or ""))

        self.screen.app.push_screen(
            SessionsScreen(a.sessions, cwd=a.cwd, current_id=a.session_id), done
        )
