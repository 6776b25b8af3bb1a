"""Session history → chat messages for an HTTP agent, and the budget trimmer.

The history never contains the current prompt
(docs/adr/0001-record-the-user-turn-after-the-agent-answers.md), so nothing here strips
a trailing user turn.  Turns of the other agent are labelled (``[user to X]``,
``[X as escalation]``); trimming drops the oldest turns first and never the pinned blocks.
"""

from __future__ import annotations

from milk_tui.agents.base import ChatMessage
from milk_tui.model.session import Turn


def _label(t: Turn) -> str:
    return t.agent_name or t.agent or "agent"


def build_agent_history(history: list[Turn], self_agent: str, start: int = 0) -> list[ChatMessage]:
    out: list[ChatMessage] = []
    for t in history[start:]:
        if t.role == "user":
            out.append(ChatMessage("user", f"[user to {_label(t)}] {t.content}"))
        elif t.role == "assistant":
            if not t.content:
                continue
            if t.agent == self_agent:
                out.append(ChatMessage("assistant", t.content))
            else:
                out.append(
                    ChatMessage("system", f"[{_label(t)} as {t.agent or 'assistant'}] {t.content}")
                )
        elif t.role == "tool_result" and t.agent == self_agent:
            out.append(ChatMessage("tool", t.content))
    return out


def messages_size(msgs: list[ChatMessage]) -> int:
    return sum(len(m.content.encode()) for m in msgs)


def _drop_head(msgs: list[ChatMessage]) -> None:
    """Remove the oldest message, then anything up to the next user message."""
    msgs.pop(0)
    while msgs and msgs[0].role != "user":
        msgs.pop(0)


def trim_history(
    history_msgs: list[ChatMessage],
    budget: int,
    overhead: int,
    *,
    other_agents_first: bool = False,
) -> tuple[list[ChatMessage], bool]:
    """Fit history into ``budget − overhead`` bytes; the pinned system blocks are the overhead.

    ``other_agents_first`` (escalation agents): drop the other agent's answers and the
    user turns addressed to it, oldest first, before touching the agent's own earlier work.
    Returns (messages, trimmed?).
    """
    if budget <= 0:
        return history_msgs, False
    limit = max(1, budget - overhead)
    size = messages_size(history_msgs)
    if size <= limit:
        return history_msgs, False
    msgs = list(history_msgs)
    if other_agents_first:
        i = 0
        while size > limit and i < len(msgs):
            m = msgs[i]
            if m.role == "system" or (m.role == "user" and _addressed_elsewhere(msgs, i)):
                size -= len(m.content.encode())
                msgs.pop(i)
                continue
            i += 1
    while size > limit and msgs:
        _drop_head(msgs)
        size = messages_size(msgs)
    return msgs, True


def _addressed_elsewhere(msgs: list[ChatMessage], i: int) -> bool:
    """A user message whose answer (next message) came from the other agent, or none at all."""
    nxt = msgs[i + 1] if i + 1 < len(msgs) else None
    return nxt is None or nxt.role in ("system", "user")
