"""The slash commands' dispatcher: runs a parsed command in the group that defines it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from milk_tui.facade.errors import StorageError
from milk_tui.tui.commands import SlashCommand
from milk_tui.tui.redirects import redirect
from milk_tui.tui.slash.agents import AgentCommands
from milk_tui.tui.slash.attach import AttachCommands
from milk_tui.tui.slash.base import SlashGroup
from milk_tui.tui.slash.config import ConfigCommands
from milk_tui.tui.slash.eval import EvalCommands
from milk_tui.tui.slash.mcp import McpCommands
from milk_tui.tui.slash.memory import MemoryCommands
from milk_tui.tui.slash.permissions import PermissionCommands
from milk_tui.tui.slash.presentation import PresentationCommands
from milk_tui.tui.slash.remote import RemoteCommands
from milk_tui.tui.slash.routing import RoutingCommands
from milk_tui.tui.slash.servers import ServerCommands
from milk_tui.tui.slash.sessions import SessionCommands
from milk_tui.tui.slash.shell import ShellCommands
from milk_tui.tui.slash.tasks import TaskCommands
from milk_tui.tui.slash.telemetry import TelemetryCommands
from milk_tui.tui.slash.transcript import TranscriptCommands
from milk_tui.tui.slash.update import UpdateCommands
from milk_tui.tui.slash.usage import UsageCommands
from milk_tui.tui.slash.workflow import WorkflowCommands

if TYPE_CHECKING:
    from milk_tui.tui.screens.main import MainScreen

GROUPS: tuple[type[SlashGroup], ...] = (
    RoutingCommands,
    SessionCommands,
    MemoryCommands,
    McpCommands,
    PermissionCommands,
    PresentationCommands,
    ConfigCommands,
    ServerCommands,
    TranscriptCommands,
    TelemetryCommands,
    UsageCommands,
    EvalCommands,
    UpdateCommands,
    AttachCommands,
    AgentCommands,
    ShellCommands,
    RemoteCommands,
    TaskCommands,
    WorkflowCommands,
)


class SlashHandler(SlashGroup):
    """Runs a parsed command in the group that defines it; errors become one line."""

    def __init__(self, screen: MainScreen) -> None:
        super().__init__(screen)
        self.groups = [g(screen) for g in GROUPS]

    def handler(self, cmd: SlashCommand) -> Callable[[str], Awaitable[None]]:
        name = "cmd_" + cmd.name.lstrip("/").replace("-", "_")
        for group in self.groups:
            found = getattr(group, name, None)
            if found is not None:
                return found
        raise LookupError(f"no handler for {cmd.name}")

    async def run(self, cmd: SlashCommand, arg: str) -> None:
        if hint := redirect(cmd.name, arg):
            self.say(hint)
            return
        try:
            await self.handler(cmd)(arg)
        except StorageError as e:
            self.say(f"{cmd.name}: storage error: {e}", "error")
        except (KeyError, ValueError) as e:
            self.say(f"{cmd.name}: {e}", "error")

    async def open_memory(self) -> None:
        await MemoryCommands(self.screen).open_memory()

    async def open_sessions(self) -> None:
        await SessionCommands(self.screen).open_sessions()
