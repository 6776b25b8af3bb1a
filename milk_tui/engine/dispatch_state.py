"""What the dispatcher's parts share: configuration, the current session, the two agents.

One object handed to every part (request builder, commit, turn lifecycle), so that a new
session (``switch_session``) or a replaced agent is seen by all of them at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from milk_tui.agents.base import Slot
from milk_tui.config.settings import MilkConfig
from milk_tui.engine.agent_slot import AgentSlot
from milk_tui.engine.availability import AvailabilityCache
from milk_tui.engine.bus import EventBus
from milk_tui.engine.custom_prompt import CustomPrompts
from milk_tui.engine.router import RouteFlags, Router
from milk_tui.memory.service import MemoryService
from milk_tui.model.attachment import Attachment
from milk_tui.model.session import PRIMARY, Session
from milk_tui.storage.sessions import SessionStore

if TYPE_CHECKING:
    from milk_tui.agents.mcp.manager import McpManager
    from milk_tui.engine.task_board import TaskBoard

PermissionPolicy = Literal["ask", "allow", "deny"]


@dataclass
class DispatchState:
    config: MilkConfig
    store: SessionStore
    session: Session
    bus: EventBus
    cwd: str
    primary: AgentSlot | None
    escalation: AgentSlot | None
    router: Router
    memory: MemoryService | None = None
    availability: AvailabilityCache | None = None
    permission_policy: PermissionPolicy = "ask"
    """``ask`` the user; ``allow`` everything (``--allow-tools``); ``deny`` = no one to ask
    (headless: only stored grants allow)."""
    remote_answerer: bool = False
    """Remote oversight is running: with ``deny`` (headless) a permission question still goes
    out as ``PermissionRequested`` for the phone instead of being refused at once."""
    skip_permissions: bool = False
    """The session's ``/skip-permissions on``: allow every tool call of both agents."""
    flags: RouteFlags = field(default_factory=RouteFlags)
    mcp: McpManager | None = None
    """The configured MCP servers; their ready tools join the API agents' tool boxes."""
    prompts: CustomPrompts = field(default_factory=CustomPrompts)
    """The agents' custom prompt files, re-read when they change (engine/custom_prompt.py)."""
    tasks: TaskBoard | None = None
    """The live session's task list: the task tools, the Claude CLI's tasks MCP server."""
    attachments: tuple[Attachment, ...] = ()
    """The running turn's files: set by ``TurnRunner.run_turn`` for the turn's length."""

    @property
    def primary_name(self) -> str:
        return self.primary.name if self.primary else "primary"

    @property
    def escalation_name(self) -> str:
        return self.escalation.name if self.escalation else "escalation"

    def agent(self, slot: Slot) -> AgentSlot | None:
        return self.primary if slot == PRIMARY else self.escalation
