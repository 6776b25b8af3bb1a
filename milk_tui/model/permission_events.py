"""The permission question, its answers and the calls refused: the events between an agent's
tool call that needs the user and the decision (docs/interfaces.md, "Bus events")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from milk_tui.model.bus_event import BusEvent, field


class PermissionRequested(BusEvent):
    """A tool permission question; the answer travels back through the dispatcher."""

    type: Literal["permission_requested"] = "permission_requested"
    request_id: str
    agent_name: str
    tool_name: str
    tool_input: dict[str, Any] = field(default_factory=dict)
    effect: str = "run"
    """``read`` / ``write`` / ``run`` / ``network`` (what the tool does to the world)."""
    outside_paths: tuple[str, ...] = ()
    """Paths of the call outside the working folder (why a read asks)."""
    preview: str = ""
    """For file writes and edits: a unified diff of the change (``model.edit_preview``)."""
    always_rules: tuple[str, ...] = ()
    """The Claude CLI's own rules "Always" stores (``.claude/settings.local.json``);
    empty: "Always" grants the tool in milk's grants for the folder."""
    resolved_paths: tuple[str, ...] = ()
    """Every path argument of the call, resolved (absolute) as the tool will use it."""
    grant: str = ""
    """The milk grant "Always" stores: the tool name, or ``tool:prefix`` for a shell
    command (commands starting with those words only); "" means the tool name."""
    grant_all: str = ""
    """A wider grant offered as a separate, explicit choice ("" when none)."""


PermissionHow = Literal["skip", "grant", "user", "always", "headless", "cancelled"]
"""How a permission decision was made: the session's skip-permissions switch (or
``--allow-tools``), a stored grant for the folder, the user's answer (``always`` also
stores a grant), no one to ask (headless), or the turn was cancelled while asking."""


class PermissionDecided(BusEvent):
    """Every permission decision on a tool call that needed one (free reads need none)."""

    type: Literal["permission_decided"] = "permission_decided"
    request_id: str = ""
    """The ``PermissionRequested`` this answers; "" when no one was asked."""
    agent_name: str
    tool_name: str
    allowed: bool
    how: PermissionHow
    reason: str = ""
    answered_from: str = ""
    """A user's answer given elsewhere than the terminal: ``telegram`` (remote oversight's
    phone) or ``timeout`` (its ``timeout_action`` after ``perm_timeout_secs``); "" otherwise."""


class QuestionAsked(BusEvent):
    """An agent asks the user to choose (the Claude CLI's ``AskUserQuestion``): each
    question has ``question``, ``header``, ``multiSelect`` and ``options`` (``label``,
    ``description``); the answer travels back through the application facade."""

    type: Literal["question_asked"] = "question_asked"
    request_id: str
    agent_name: str
    questions: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class DeniedCall:
    tool_name: str
    summary: str = ""
    """The call's command, path or URL, short."""
    rules: tuple[str, ...] = ()
    """What granting it stores (the Claude CLI's allow rules)."""


class PermissionsDenied(BusEvent):
    """After a turn: the tool calls the agent was refused; the facade's
    ``grant_and_retry`` allows them for the folder and resumes the agent's session."""

    type: Literal["permissions_denied"] = "permissions_denied"
    agent_name: str
    denials: list[DeniedCall] = field(default_factory=list)
