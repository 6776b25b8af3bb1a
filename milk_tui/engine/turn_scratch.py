"""What one in-flight turn has produced so far, and how to undo its effect on the session.

A failed or cancelled turn must leave the session exactly as it was (ADR-0038 + DESIGN
§2), but the need is shown live as agents emit it; so the dispatcher snapshots the
session's scalar state before a turn and restores it on failure.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from milk_tui.model.session import Session, TokenUsage, Turn

_ROLLBACK_FIELDS = (
    "state", "current_need", "current_need_set_at", "need_producer", "escalation_session_id",
    "escalation_brief", "last_local_summary", "last_escalation_summary",
    "last_local_summary_injected", "escalation_nonce", "primary_nonce",
    "memory_instruction_injected_at", "force_fresh_escalation", "repetition_baseline",
)  # fmt: skip


@dataclass
class SessionSnapshot:
    values: dict[str, object]
    history_len: int
    tokens: dict[tuple[str, str], TokenUsage]

    @classmethod
    def take(cls, s: Session) -> SessionSnapshot:
        return cls(
            {f: getattr(s, f) for f in _ROLLBACK_FIELDS}, len(s.history), copy.deepcopy(s.tokens)
        )

    def restore(self, s: Session) -> None:
        for f, v in self.values.items():
            setattr(s, f, v)
        del s.history[self.history_len :]
        s.tokens = self.tokens


@dataclass
class TurnScratch:
    text: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)
    usage: list[TokenUsage] = field(default_factory=list)
    percepts: list[tuple[str, str | None]] = field(default_factory=list)
    """(body, explicit consumer or None to read the @name: hint) — recorded only on success."""
    backend_session_id: str = ""
    escalation_reason: str = ""
    cost_usd: float = 0.0

    def joined_text(self) -> str:
        return "".join(self.text)

    def joined_thinking(self) -> str:
        return "".join(self.thinking)


@dataclass
class PendingHandoff:
    """The primary's half of a self-escalated turn, held back until the escalation succeeds.

    ADR-0038 says the history an agent sees never contains the prompt it is answering; if
    the primary's user turn were committed before the hand-off, the escalation agent would
    be handed the current prompt twice.  So both halves are committed in one transaction at
    the end (Go milk's turn shape, but atomic), and a failed escalation records neither.
    """

    turns: list[Turn]
    usage: list[TokenUsage]
    scratch: TurnScratch
    snapshot: SessionSnapshot
