"""Each workflow role's streamed text in the conversation, under a header naming the role
and its agent (``generator · gen — sprint 1 pass 2``), drawn like any agent reply
(Markdown, already inert: the bridge makes every event's text inert before it gets here).

A role's tool calls arrive as the normal tool events: the open block closes before one, and
the role's text after it continues in a new block under the same header."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from milk_tui.model import events as ev
from milk_tui.tui.transcript import Item

if TYPE_CHECKING:
    from milk_tui.tui.widgets.conversation import Conversation
    from milk_tui.tui.widgets.reply_block import ReplyBlock

_HEADER = re.compile(r"^(\w+)(.*?)\s*\(([^()]*)\)\s*$")
ROLE_SLOT = "escalation"
"""Role text takes the escalation reply's colours: it is not the primary's answer."""


def role_label(header: str) -> str:
    """``generator sprint 1 pass 2 (gen)`` → ``generator · gen — sprint 1 pass 2``."""
    m = _HEADER.match(header.strip())
    if m is None:
        return header.strip()
    role, detail, agent = m.group(1), m.group(2).strip(), m.group(3).strip()
    return f"{role} · {agent}" + (f" — {detail}" if detail else "")


class RoleStream:
    def __init__(self, conv: Conversation) -> None:
        self._conv = conv
        self._label = ""
        self._block: ReplyBlock | None = None
        self._item: Item | None = None

    def handle(self, e: ev.BusEvent) -> None:
        match e:
            case ev.WorkflowDelta(header=header, text=text):
                if header:
                    self.close()
                    self._label = role_label(header)
                if text:
                    self._open().append(text)
                    self._conv.follow_tail()
            case (
                ev.ToolCall() | ev.WorkflowProgress() | ev.WorkflowQuestions()
                | ev.WorkflowFinished() | ev.TurnStarted()
            ):  # fmt: skip
                self.close()

    def _open(self) -> ReplyBlock:
        from milk_tui.tui.widgets.reply_block import ReplyBlock

        if self._block is None:
            item = Item("reply", "", agent_name=self._label or "workflow", slot=ROLE_SLOT)
            block = self._conv.add(item, live=True)
            assert isinstance(block, ReplyBlock)
            self._block, self._item = block, self._conv.items[-1]
        return self._block

    def close(self) -> None:
        if self._block is not None:
            self._block.finish()
            if self._item is not None:
                self._item.text = self._block.text
        self._block = self._item = None
