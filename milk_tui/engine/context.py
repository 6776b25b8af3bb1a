"""The messages of an HTTP agent's request: pinned system blocks, then the trimmed history.

The pinned blocks (need / orientation, remembered facts) are counted once as overhead
and never trimmed; only the conversation history is trimmed to the message budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from milk_tui.agents.base import ChatMessage
from milk_tui.engine.history import (
    build_agent_history,
    messages_size,
    newest_history,
    trim_history,
)
from milk_tui.model.session import PRIMARY, Session


@dataclass
class BuiltMessages:
    messages: list[ChatMessage]
    overhead: int
    trimmed: bool


def assemble_messages(
    session: Session,
    *,
    self_agent: str,
    pinned: list[str],
    budget: int,
    system_prompt: str,
    history_start: int = 0,
) -> BuiltMessages:
    """``pinned`` system blocks first (in order, empties skipped), then the trimmed history."""
    head = [ChatMessage("system", text) for text in pinned if text]
    overhead = messages_size(head) + len(system_prompt.encode())
    other_first = self_agent != PRIMARY
    if budget > 0 and not other_first:
        limit = max(1, budget - overhead)
        hist = newest_history(session.history, self_agent, limit, start=history_start)
        hist, trimmed = trim_history(hist, budget, overhead)  # trimmed iff the walk stopped
    else:
        hist = build_agent_history(session.history, self_agent, start=history_start)
        hist, trimmed = trim_history(hist, budget, overhead, other_agents_first=other_first)
    return BuiltMessages(head + hist, overhead, trimmed)
