"""Session history → chat messages for an HTTP agent, and the budget trimmer.

The history never contains the current prompt
(docs/adr/0001-record-the-user-turn-after-the-agent-answers.md), so nothing here strips
a trailing user turn.  Turns of the other agent are labelled (``[user to X]``,
``[X as escalation]``); trimming drops the oldest turns first and never the pinned blocks.
"""

from __future__ import annotations

from milk_tui.agents.base import ChatMessage
from milk_tui.model.attachment import history_text
from milk_tui.model.session import Turn


def _label(t: Turn) -> str:
    return t.agent_name or t.agent or "agent"


def build_agent_history(history: list[Turn], self_agent: str, start: int = 0) -> list[ChatMessage]:
    return [m for t in history[start:] if (m := _message(t, self_agent)) is not None]


def newest_history(
    history: list[Turn], self_agent: str, limit: int, start: int = 0
) -> list[ChatMessage]:
    """The messages of the newest turns, from the end back to the first one that brings the
    total over ``limit`` bytes (all of them if they fit).  ``trim_history`` without
    ``other_agents_first`` gives the same result on this as on the whole history — the
    turns before can only be dropped — so a long session costs what its kept tail costs."""
    out: list[ChatMessage] = []
    size = 0
    for i in range(len(history) - 1, start - 1, -1):
        m = _message(history[i], self_agent)
        if m is None:
            continue
        out.append(m)
        size += _size(m)
        if size > limit:
            break
    out.reverse()
    return out


def _message(t: Turn, self_agent: str) -> ChatMessage | None:
    if t.role == "user":
        return ChatMessage(
            "user", f"[user to {_label(t)}] {history_text(t.content, t.attachments)}"
        )
    if t.role == "assistant":
        if not t.content:
            return None
        if t.agent == self_agent:
            return ChatMessage("assistant", t.content)
        return ChatMessage("system", f"[{_label(t)} as {t.agent or 'assistant'}] {t.content}")
    if t.role == "tool_result" and t.agent == self_agent:
        return ChatMessage("tool", t.content)
    return None


def messages_size(msgs: list[ChatMessage]) -> int:
    return sum(_size(m) for m in msgs)


def _size(m: ChatMessage) -> int:
    return len(m.content.encode())


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
    Then the oldest message goes, with anything up to the next user message, until it fits.
    Returns (messages, trimmed?).  One pass each, the size kept as a running total: this
    runs before every request, and a long session has thousands of messages.
    """
    if budget <= 0:
        return history_msgs, False
    limit = max(1, budget - overhead)
    size = messages_size(history_msgs)
    if size <= limit:
        return history_msgs, False
    msgs = history_msgs
    if other_agents_first:
        kept: list[ChatMessage] = []
        for i, m in enumerate(msgs):
            if size > limit and (
                m.role == "system" or (m.role == "user" and _addressed_elsewhere(msgs, i))
            ):
                size -= _size(m)
                continue
            kept.append(m)
        msgs = kept
    start, n = 0, len(msgs)
    while size > limit and start < n:
        size -= _size(msgs[start])
        start += 1
        while start < n and msgs[start].role != "user":
            size -= _size(msgs[start])
            start += 1
    return msgs[start:], True


def _addressed_elsewhere(msgs: list[ChatMessage], i: int) -> bool:
    """A user message whose answer (next message) came from the other agent, or none at all."""
    nxt = msgs[i + 1] if i + 1 < len(msgs) else None
    return nxt is None or nxt.role in ("system", "user")
