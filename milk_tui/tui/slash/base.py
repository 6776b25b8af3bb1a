"""What every group of slash commands shares: the screen it acts on, the facade behind it and
a way to say something in the conversation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from milk_tui.tui.transcript import Kind

if TYPE_CHECKING:
    from milk_tui.facade.application import Application
    from milk_tui.tui.screens.main import MainScreen


class SlashGroup:
    """A group of commands: each ``/name`` is an ``async def cmd_name(self, arg)`` (dashes
    become underscores).  A handler raises ``ValueError`` with one line for bad input; the
    dispatcher shows it as the command's error."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen

    @property
    def facade(self) -> Application:
        return self.screen.facade

    def say(self, text: str, kind: Kind = "notice") -> None:
        from milk_tui.tui.widgets.conversation import Conversation

        self.screen.query_one(Conversation).add_line(kind, text)
