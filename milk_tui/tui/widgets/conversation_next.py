"""The next turn's two blocks — the prompt and the reply — mounted hidden ahead of time.

Mounting a block makes Textual lay out and repaint the whole conversation (~10 ms at
120×40 on a 2-core box).  Between Enter and the request, and again before the first token
is painted, that work competes with the turn; so the blocks a turn needs first are mounted
at the end of the transcript, hidden, while nothing happens (on load and when a turn
ends).  Enter fills in the prompt without showing it; the first token shows the prompt and
the reply in one screen update.  When another block (a tool call, a notice) comes first,
the prompt is shown on its own.  When the answer takes longer than ``USER_TURN_WAIT_S``
the prompt is shown with the empty reply block, a line kept for the first text, so the
first token repaints one block instead of laying out and moving the whole transcript.
Every other block is mounted before these, so the order on screen is the order of events.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.widget import Widget

from milk_tui.tui.widgets.md_render import Palette
from milk_tui.tui.widgets.reply_block import ReplyBlock
from milk_tui.tui.widgets.stream_pace import update_screen_now
from milk_tui.tui.widgets.user_turn import UserTurn

USER_TURN_WAIT_S = 0.05
"""How long the prompt may wait, hidden, for the first token to share its screen update:
under a tenth of a second an echo still reads as immediate.  Then the prompt and the empty
reply are shown (the request is normally on the wire well before)."""


def first_line(text: str, width: int) -> int:
    """Where the first line of ``text`` ends at ``width`` columns (a little before: at a
    space, and Markdown may show fewer columns than its source): the first token is shown
    alone at the line kept for it, the rest a screen update later."""
    end = text.find("\n")
    if width <= 0:
        return len(text)
    if 0 <= end <= width:
        return end + 1
    if len(text) <= width:
        return len(text)
    space = text.rfind(" ", 0, width)
    return space + 1 if space > 0 else width


class NextTurn:
    """Owned by a ``Conversation``: its hidden spare blocks and the prompt not shown yet."""

    def __init__(self, conv: Widget) -> None:
        self.conv = conv
        self.user: UserTurn | None = None
        """Hidden and empty until a turn starts; then hidden with a prompt until shown."""
        self.reply: ReplyBlock | None = None
        """Hidden and empty until the turn's first text shows it."""
        self._held: tuple[str, list[str]] | None = None
        """The started turn's prompt and chips, not yet on screen."""
        self._route: tuple[str, str, str] | None = None
        self._routed = False
        """The started turn's reply block is aimed at the agent that answers."""
        self.first_pending = False
        """The reply just shown was waiting, a line kept: its first text goes a line first
        (``first_text``)."""
        self._rest: tuple[ReplyBlock, str, Callable[[], None]] | None = None
        """The first text but its first line, shown a screen update after it."""
        self.waiting = False
        """The reply block is shown, empty, a line kept for its first text
        (``show_waiting``); its first text is shown a line first (``first_line``)."""
        self._route_late = False
        """The waiting time passed before the turn was routed (a busy machine): the reply
        block waits to be aimed, then ``aim_reply`` shows it waiting."""

    def reset(self) -> None:
        """The transcript was cleared (its children removed with these)."""
        self.user = self.reply = None
        self._held = self._route = self._rest = None
        self._routed = self.waiting = self.first_pending = self._route_late = False

    def ready(self, slot: str, name: str, palette: Palette) -> None:
        """Mount whichever spare is missing, hidden, at the end of the transcript."""
        self.hide_waiting()
        self._routed = self._route_late = False
        spares: list[Widget] = []
        if self.user is None:
            self.user = UserTurn("")
            spares.append(self.user)
        if self.reply is None:
            self.reply = ReplyBlock(name, slot, "", palette=palette)
            spares.append(self.reply)
        for w in spares:
            w.display = False
        if spares:  # before a reply spare left from a turn without text: order holds
            kept = self.reply if self.reply not in spares else None
            self.conv.mount_all(spares, before=kept)

    def anchor(self) -> Widget | None:
        """What a new block is mounted before: the first spare still hidden."""
        if self.user is not None and self._held is None:
            return self.user
        return self.reply

    # ----- the prompt --------------------------------------------------------------------

    def take_user(self, prompt: str, chips: list[str]) -> UserTurn:
        """The turn started: its prompt block, still hidden (shown by ``show_user``)."""
        self.show_user(update=False)  # a previous turn's, if any was never shown
        if self.user is None:  # not ready (a turn before the first load): mount one now
            self.user = UserTurn("")
            self.user.display = False
            self.conv.mount(self.user, before=self.reply)
        self._held, self._route = (prompt, chips), None
        self._routed = self._route_late = False
        return self.user

    def route(self, user: UserTurn, agent_name: str, reason: str, label: str) -> None:
        if self._held is not None and user is self.user:
            self._route = (agent_name, reason, label)  # applied when shown: no layout now
        else:
            user.set_route(agent_name, reason, label)

    def show_user(self, *, update: bool = True) -> None:
        """Show the held prompt; ``update``: ask the screen for its update now."""
        user, held = self.user, self._held
        if user is None or held is None:
            return
        self.user, self._held = None, None
        user.prompt = held[0]
        user.with_chips(held[1])
        if self._route is not None:
            user.set_route(*self._route)
            self._route = None
        user.display = True
        if update and user.is_attached:
            update_screen_now(user)

    # ----- the reply ---------------------------------------------------------------------

    def aim_reply(self, slot: str, name: str, palette: Palette) -> None:
        """The turn was routed to ``slot``: make the hidden reply block that slot's."""
        self._routed = True
        reply = self.reply
        if reply is not None and reply.slot == slot:
            reply.agent_name = name  # its header is drawn when it is first laid out
            self._wait_late(reply)
            return
        if reply is not None:
            reply.remove()
        self.reply = ReplyBlock(name, slot, "", palette=palette)
        self.reply.display = False
        self.conv.mount(self.reply)
        if self._route_late:  # shown once mounted, as ``show_waiting`` would have
            self.conv.call_after_refresh(self._wait_late, self.reply)

    def _wait_late(self, reply: ReplyBlock) -> None:
        if self._route_late and reply is self.reply and reply.is_attached:
            self._route_late = False
            self._wait_on(reply)

    def show_waiting(self) -> None:
        """No token within ``USER_TURN_WAIT_S``: show the held prompt and, once the turn is
        routed, its empty reply block with a line kept for the first text, so the first
        token changes one line of one block instead of moving the whole transcript."""
        reply = self.reply
        if self._held is None:
            return  # shown already: the first text or another block came first
        if not self._routed or reply is None or not reply.is_attached:
            self.show_user()
            self._route_late = True
            return
        self.show_user(update=False)
        self._wait_on(reply)

    def _wait_on(self, reply: ReplyBlock) -> None:
        self.waiting = True
        reply.reserve_line()
        reply.display = True
        update_screen_now(reply)

    def hide_waiting(self) -> None:
        """Another block comes first, or the turn ended without text: the empty reply
        block goes back to waiting hidden."""
        reply = self.reply
        if self.waiting and reply is not None:
            reply.reserve_line(False)
            reply.display = False
        self.waiting = self._route_late = False

    def take_reply(self, slot: str, name: str) -> ReplyBlock | None:
        """The hidden reply block for the first text of ``slot``, or None if it is
        another agent's; the caller shows it with ``show_reply``."""
        reply = self.reply
        if reply is None or reply.slot != slot or reply.agent_name != name:
            return None
        self.reply = None
        self._routed = False
        return reply

    def show_reply(self, reply: ReplyBlock) -> None:
        """The first token: the prompt and the reply shown in one screen update, now; or,
        if the reply was shown already, waiting with a line kept, ``first_text`` shows it."""
        if self.waiting:
            self.waiting, self.first_pending = False, True
            return
        self.show_user(update=False)
        width = self.conv.scrollable_content_region.width - reply.styles.gutter.width
        reply.prime_width(width)  # the first text renders in this frame, not in the layout
        reply.display = True
        update_screen_now(reply)

    def first_text(self, reply: ReplyBlock, text: str, follow: Callable[[], None]) -> None:
        """The waiting reply's first text: its first line now, in the line kept for it (a
        repaint of one block while its height holds), the rest a screen update later;
        ``follow`` keeps the transcript at its end then."""
        self.first_pending = False
        cut = first_line(text, reply.content_region.width)
        if cut < len(text):
            self._rest = (reply, text[cut:], follow)
            self.conv.call_after_refresh(self.show_rest)
        reply.append(text[:cut])
        size = reply.size  # its lines now, against the height it was laid out with
        lines = reply.get_content_height(size, size, size.width)
        update_screen_now(reply, layout=lines != size.height)

    def show_rest(self) -> None:
        """The rest of the first text (``first_text``), if not shown yet: before any later
        event, or a screen update after the first line."""
        rest, self._rest = self._rest, None
        if rest is not None:
            rest[0].append(rest[1])
            rest[2]()
