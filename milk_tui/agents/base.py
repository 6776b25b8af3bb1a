"""The contract between the dispatcher and every agent backend.

An agent does inference only: it gets an ``AgentRequest`` the dispatcher built and yields
a small set of typed ``AgentEvent``s.  It never touches the session, the database or the
bus; side effects it needs (the ``current_need`` and ``record_memory`` tools, permission
questions) go through the tool box and callbacks the request carries.  API backends run
their tool calls through ``agents.tool_loop`` (docs/adr/0007-one-tool-loop.md).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import KW_ONLY, dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from milk_tui.model.attachment import Attachment

if TYPE_CHECKING:
    from milk_tui.config.mcp import McpServerConfig

Slot = Literal["primary", "escalation"]
ContextMode = Literal["first", "returning", "resume", "continuation"]


# ----- agent events (normalised wire formats) ---------------------------------------


@dataclass(slots=True)
class TextChunk:
    text: str


@dataclass(slots=True)
class ThinkingChunk:
    text: str


@dataclass(slots=True)
class ToolCallEvent:
    call_id: str
    name: str
    arguments: str


@dataclass(slots=True)
class ToolResultEvent:
    call_id: str
    name: str
    content: str
    is_error: bool = False


@dataclass(slots=True)
class UsageEvent:
    model: str
    prompt_tokens: int = 0
    """Fresh (uncached) prompt tokens: OpenAI-style totals have cached tokens subtracted."""
    completion_tokens: int = 0
    cache_read: int = 0
    cache_creation: int = 0
    cost_usd: float = 0.0
    role_suffix: str = ""
    """"" for the agent's own usage, "subagent" for Claude sub-agent traffic."""


@dataclass(slots=True)
class Finished:
    stop_reason: str = ""
    session_id: str = ""
    """Backend conversation id to persist (Claude CLI); "" when the backend has none."""
    escalation_reason: str = ""
    """Non-empty when the primary asked to hand off (``escalate`` tool / repeated prompt)."""
    reasoning_promoted: bool = False
    """The model wrote only reasoning, re-sent as the answer text: the dispatcher then
    keeps no separate thinking, so it is not stored twice."""
    permission_denials: tuple[DeniedTool, ...] = ()
    """Tool calls the backend was refused this turn (Claude CLI ``permission_denials``)."""


@dataclass(frozen=True, slots=True)
class DeniedTool:
    """One refused tool call, and the allow rules that would let it run next time."""

    tool_name: str
    tool_input: dict[str, Any]
    rules: tuple[str, ...] = ()


AgentEvent = TextChunk | ThinkingChunk | ToolCallEvent | ToolResultEvent | UsageEvent | Finished


class AgentError(Exception):
    """A backend failure worded for the user: agent name, status and the backend's message."""

    def __init__(
        self,
        message: str,
        *,
        agent: str = "",
        status: int | None = None,
        retryable: bool = False,
        unreachable: bool = False,
    ) -> None:
        super().__init__(message)
        self.agent = agent
        self.status = status
        self.retryable = retryable
        self.unreachable = unreachable
        """Nothing answered at all (refused, DNS, connect timeout): the availability cache
        marks the agent down so the next turn falls back without waiting for a probe."""


class SessionNotFound(AgentError):
    """The backend does not know the conversation id we asked to resume."""


# ----- what the dispatcher hands an agent ---------------------------------------------


@dataclass(slots=True)
class ChatMessage:
    role: Literal["system", "user", "assistant", "tool"]
    content: str
    tool_calls: list[dict[str, Any]] | None = None
    tool_call_id: str | None = None
    name: str | None = None


ToolEffect = Literal["read", "write", "run", "network"]
"""What a tool does to the world: reads inside the working folder run freely; the others
(and any path outside the folder) go through the permission check first."""


@dataclass(slots=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]
    """JSON schema (type: object) — arguments are validated against it before running."""
    effect: ToolEffect | None = None
    """What the tool does to the world; every tool declares it (a test checks each box's
    tools).  None — undeclared — is asked about like ``run``."""
    path_args: tuple[str, ...] = ()
    """Names of the arguments that are filesystem paths (checked against the working folder)."""


@dataclass(slots=True)
class ToolOutcome:
    content: str
    is_error: bool = False
    escalate_reason: str = ""
    """Set by the ``escalate`` tool: the agent stops its loop and finishes with this reason."""
    _: KW_ONLY
    stderr: str = ""
    """A process's standard error (``bash``); ``content`` is then its standard output."""
    exit_code: int = 0
    """A process's exit status or an HTTP status; 0 is left out of the result."""

    def envelope(self) -> dict[str, Any]:
        """The result as the model gets it: ``output``, ``error``, ``exit_code``, empty ones
        left out, so the model tells a failure from output that merely mentions one."""
        if not (self.stderr or self.exit_code):
            return {"error": self.content} if self.is_error else {"output": self.content}
        body: dict[str, Any] = {"output": self.content, "error": self.stderr}
        body = {k: v for k, v in body.items() if v}
        if self.exit_code:
            body["exit_code"] = self.exit_code
        return body

    def text(self) -> str:
        """One text for a reader (the tool line, text-only wires): output, then stderr and a
        failing exit status when there are any."""
        parts = [self.content] if self.content else []
        if self.stderr:
            parts.append(f"[stderr]\n{self.stderr}")
        if self.is_error and self.exit_code:
            parts.append(f"[exit code {self.exit_code}]")
        return "\n".join(parts)


class ToolBox(Protocol):
    def specs(self) -> list[ToolSpec]: ...

    async def call(self, name: str, arguments: str) -> ToolOutcome: ...


@dataclass(slots=True)
class PermissionQuestion:
    agent_name: str
    tool_name: str
    tool_input: dict[str, Any]
    effect: ToolEffect = "run"
    outside_paths: tuple[str, ...] = ()
    """Paths of this call that resolve outside the working folder (each needs asking)."""
    always_rules: tuple[str, ...] = ()
    """A backend that keeps its own permission rules (the Claude CLI): what "Always for
    this folder" stores there instead of a milk grant of the tool."""
    resolved_paths: tuple[str, ...] = ()
    """Every path argument of the call, resolved as the tool will resolve it (absolute)."""
    grant: str = ""
    """The milk grant "Always" stores for the folder: the tool name, or ``tool:prefix`` for
    a shell command (only commands starting with those words); "" means the tool name."""
    grant_all: str = ""
    """A wider grant offered as its own, explicit choice (for a shell command: every
    command, the tool name); "" when there is none."""


@dataclass(frozen=True, slots=True)
class PermissionAnswer:
    """The decision on one ``PermissionQuestion``."""

    allow: bool
    always: bool = False
    """The user allowed the tool for this folder from now on (the grant is stored)."""
    wide: bool = False
    """With ``always``: store the question's ``grant_all`` instead of its ``grant``."""
    reason: str = ""
    """Why it was denied, told to the model (the user's words, or the policy's)."""
    answered_from: str = ""
    """Where the answer came from: "" the terminal, ``telegram`` the phone, ``timeout``
    remote oversight's ``timeout_action`` after ``perm_timeout_secs``."""


AskPermission = Callable[[PermissionQuestion], Awaitable[PermissionAnswer]]

AskUser = Callable[[str, list[dict[str, Any]]], Awaitable[dict[str, str] | None]]
"""(agent name, the Claude CLI's ``AskUserQuestion`` questions) → the answers keyed by
question text (several choices comma-separated), or None when the user gave none."""


@dataclass
class AgentRequest:
    slot: Slot
    prompt: str
    cwd: str
    system_prompt: str = ""
    """HTTP agents: the role prompt (+ need/memory tag instructions for the primary)."""
    messages: list[ChatMessage] = field(default_factory=list)
    """HTTP agents: prior turns (never the current prompt), system blocks first, trimmed."""
    append_system_prompt: str = ""
    """Claude CLI: static + dynamic context, written to ONE --append-system-prompt-file."""
    mode: ContextMode = "first"
    resume_session_id: str = ""
    """Claude CLI: resume this conversation ("" = fresh start with a new --session-id)."""
    nonce: str = ""
    tools: ToolBox | None = None
    ask_permission: AskPermission | None = None
    """The permission check: the Claude CLI's own questions and, in the tool loop, every
    call of an API backend go through it (``agents.tool_permission``)."""
    ask_user: AskUser | None = None
    """Questions the agent puts to the user (the Claude CLI's ``AskUserQuestion``)."""
    attachments: tuple[Attachment, ...] = ()
    """Files sent with this prompt (checked already): each wire format puts text files in
    the prompt text and images in its own image part (model/attachment.py)."""
    images: bool = True
    """False: the agent takes no images (its ``vision: false``); each goes as a note."""
    own_mcp_servers: tuple[McpServerConfig, ...] = ()
    """Claude CLI: milk's own MCP servers for this turn (the tasks server, bound to the live
    session); their tools run without a question (docs/adr/0040-tasks.md)."""
    shown_live: bool = False
    """A turn's reply, shown as it arrives (not a router or agent-as-tool call): in an
    interactive front end its stream reads on after its first text only once that text
    is painted (engine/cooperative.py)."""
    on_wire: Callable[[], None] | None = None
    """Called once, when the turn's first request is on its way: the HTTP agents when its
    body is written to the socket, the Claude CLI when the prompt is written to its stdin,
    Bedrock as its call starts.  The engine publishes ``RequestSent`` from it."""


class Agent(Protocol):
    name: str
    model: str

    def stream(self, request: AgentRequest) -> AsyncIterator[AgentEvent]:
        """Yield events for one turn; raise AgentError on failure.

        Cancellation (``asyncio.CancelledError``) must stop network reads / kill the
        subprocess promptly; the dispatcher records nothing for a cancelled turn.
        """
        ...

    async def available(self) -> bool:
        """Cheap reachability check, cached by the caller."""
        ...

    async def aclose(self) -> None: ...
