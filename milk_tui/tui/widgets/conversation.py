"""The transcript: renders bus events as blocks, windowed so long sessions stay cheap.

Only the tail of the transcript is mounted (``WINDOW`` blocks); scrolling to the top
mounts ``PAGE`` older blocks from ``self.items``, and while the user sits at the bottom the
oldest widgets are unmounted again past ``MAX_MOUNTED``.  Streaming goes to one open
``ReplyBlock`` per agent reply; every other block is static once mounted.  The scroll
position follows the bottom only while the user is there (``follow_scroll.py``).
"""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Static

from milk_tui.model import events as ev
from milk_tui.model.session import PRIMARY
from milk_tui.model.terminal_text import inert_copy
from milk_tui.tui import gc_pace
from milk_tui.tui.transcript import Item, Kind
from milk_tui.tui.widgets.attachment_chips import decode_chips, encode_chips
from milk_tui.tui.widgets.code_warmup import warm_code_highlighting
from milk_tui.tui.widgets.conversation_next import USER_TURN_WAIT_S, NextTurn
from milk_tui.tui.widgets.follow_scroll import FollowScroll
from milk_tui.tui.widgets.handoff_text import handoff_text
from milk_tui.tui.widgets.md_render import Palette
from milk_tui.tui.widgets.older_turns import OlderTurns, older_marker
from milk_tui.tui.widgets.reply_block import ReplyBlock
from milk_tui.tui.widgets.thinking_block import ThinkingBlock
from milk_tui.tui.widgets.tool_line import ToolLine
from milk_tui.tui.widgets.transcript_line import TranscriptLine
from milk_tui.tui.widgets.turn_notes import TurnNotes
from milk_tui.tui.widgets.user_turn import UserTurn

WINDOW = 16
"""Blocks mounted on resume: two or three screens of history.  Each finished reply costs a
Markdown render (~3 ms) before the first paint, so the window is what resume pays."""
PAGE = 16
"""Older blocks mounted per scroll-to-top."""
MAX_MOUNTED = 120
"""Past this many mounted blocks the oldest are unmounted (their data stays in ``items``)."""


class Conversation(FollowScroll):
    DEFAULT_CSS = """
    Conversation { height: 1fr; scrollbar-size-vertical: 1; scrollbar-gutter: stable; padding: 1 1 0 1; }
    Conversation > .older { color: $text-muted; text-align: center; width: 1fr; margin-bottom: 1; }
    """

    def __init__(
        self, *, names: dict[str, str], palette: Palette, show_thinking: bool, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.items: list[Item] = []
        self.names = dict(names)
        self.palette = palette
        self.show_thinking = show_thinking
        self._first = 0
        """Index in ``items`` of the first mounted block."""
        self._blocks: list[Widget] = []
        self._older: Static | None = None
        self._welcome: Widget | None = None
        self._reply: ReplyBlock | None = None
        self._reply_item: Item | None = None
        self._thinking: ThinkingBlock | None = None
        self._thinking_item: Item | None = None
        self._user: UserTurn | None = None
        self._user_item: Item | None = None
        self._tools: dict[str, ToolLine] = {}
        self._notes = TurnNotes()
        self._gc_turn = 0  # this turn's token for gc_pace.release
        self._next = NextTurn(self)  # the next turn's blocks, mounted hidden ahead of time
        self._loading_older = False
        self._source: OlderTurns | None = None  # turns before ``items``, still in the store

    def on_mount(self) -> None:
        warm_code_highlighting(self, self.palette)

    def on_unmount(self) -> None:
        gc_pace.release(self._gc_turn)  # closed mid-turn: collect as usual again

    # ----- loading ----------------------------------------------------------------------

    def load(
        self,
        items: list[Item],
        welcome: Widget | None = None,
        window: int = WINDOW,
        older: OlderTurns | None = None,
    ) -> None:
        """Replace the transcript (resume, /new, session switch); mounts only the tail.
        ``older``: the turns before ``items``, read when scrolling reaches them."""
        self.remove_children()
        self._source = older if older is not None and older.remaining > 0 else None
        self._next.reset()
        self.items = [inert_copy(it) for it in items]
        self._older = None
        self._reply = self._thinking = self._user = None
        self._reply_item = self._thinking_item = self._user_item = None
        self._tools = {}
        self._welcome = None
        self._first = max(0, len(self.items) - window)
        if not self.items and welcome is not None and self._source is None:
            self._welcome = welcome
            self.mount(welcome)
        widgets = [self._widget_for(it) for it in self.items[self._first :]]
        self._blocks = widgets
        head: list[Widget] = []
        if self._first > 0 or self._source is not None:
            marker = older_marker(self._first, self._source)
            self._older = Static(marker, classes="older", markup=False)
            head.append(self._older)
        if widgets:
            self.mount_all(head + widgets)
            self.resume_follow()
        else:
            self._follow = True
            self.scroll_home(animate=False, immediate=True)  # not later: it would undo a follow
        self._ready_next()

    def prepend_items(self, older: list[Item], *, inert: bool = False) -> None:
        """Put ``older`` before every item held (a resumed session is loaded tail first);
        nothing is mounted, the older-blocks marker counts them.  ``inert``: the caller
        made them inert already (off the event loop: 10,000 turns take ~0.1 s)."""
        self.items[:0] = older if inert else [inert_copy(it) for it in older]
        self._first += len(older)
        self._sync_older_marker()

    def _pull_older(self) -> None:
        """Prepend the items of the page of turns before ``items`` (from the store)."""
        if self._source is not None:
            self.prepend_items(self._source.take(), inert=True)
            if self._source.remaining <= 0:
                self._source = None
                self._sync_older_marker()

    def _sync_older_marker(self) -> None:
        if self._first > 0 or self._source is not None:
            text = older_marker(self._first, self._source)
            if self._older is None:
                self._older = Static(text, classes="older", markup=False)
                self.mount(
                    self._older, before=self._blocks[0] if self._blocks else self._next.anchor()
                )
            else:
                self._older.update(text)
        elif self._older is not None:
            self._older.remove()
            self._older = None

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        more = self._first > 0 or self._source is not None
        if new_value < 1 and more and not self._loading_older:
            self._loading_older = True
            self.call_after_refresh(self.load_older)

    def load_older(self, count: int = PAGE) -> int:
        """Mount up to ``count`` older blocks above the window, keeping the view still."""
        try:
            if self._first < count:
                self._pull_older()
            n = min(count, self._first)
            if n <= 0:
                return 0
            start = self._first - n
            widgets = [self._widget_for(it) for it in self.items[start : self._first]]
            anchor_widget = self._blocks[0] if self._blocks else self._next.anchor()
            self._first = start
            self._blocks[:0] = widgets
            self.mount_all(widgets, before=anchor_widget)
            self._sync_older_marker()
            self.call_after_refresh(self._keep_view, widgets)
            return n
        finally:
            self._loading_older = False

    def _keep_view(self, widgets: list[Widget]) -> None:
        added = sum(w.outer_size.height for w in widgets)
        self.scroll_to(y=self.scroll_y + added, animate=False, immediate=True)

    def _prune(self) -> None:
        excess = len(self._blocks) - MAX_MOUNTED
        if excess <= 0 or not self._follow:
            return
        live = {self._reply, self._thinking, self._user}
        drop = [w for w in self._blocks[:excess] if w not in live]
        for w in drop:
            self._blocks.remove(w)
        self._first += len(drop)
        self.remove_children(drop)
        self._sync_older_marker()

    # ----- blocks -----------------------------------------------------------------------

    def _widget_for(self, it: Item, live: bool = False) -> Widget:
        k = it.kind
        if k == "user":
            user = UserTurn(it.text, it.agent_name, it.detail, it.extra.get("label", ""))
            return user.with_chips(decode_chips(it.extra.get("chips", "")))
        if k == "reply":
            return ReplyBlock(it.agent_name, it.slot, it.text, done=not live, palette=self.palette)
        if k == "thinking":
            return ThinkingBlock(it.text, done=not live, expanded=self.show_thinking)
        if k == "tool":
            w = ToolLine(it.agent_name, it.text, slot=it.slot)
            if it.detail:
                w.set_result(it.detail, it.extra.get("error") == "1")
            w.item = it
            return w
        return TranscriptLine(k, it.text)

    def add(self, item: Item, live: bool = False) -> Widget:
        """Append a block; ``live`` blocks (replies, thinking) keep streaming until closed."""
        item = inert_copy(item)  # slash output, notices: may quote facts or server text
        w = self._widget_for(item, live)
        self._append(item, w)
        return w

    def _append(self, item: Item, w: Widget) -> None:
        if self._welcome is not None:
            self._welcome.remove()
            self._welcome = None
        self.items.append(item)
        self._blocks.append(w)
        if w is not self._user:  # the started turn's prompt is mounted already, hidden
            self._next.show_user()
            self._next.hide_waiting()  # the reply comes after this block, not before it
            self.mount(w, before=self._next.anchor())
        self._prune()

    def _ready_next(self) -> None:
        self._next.ready(PRIMARY, self.names.get(PRIMARY, PRIMARY), self.palette)

    def add_line(self, kind: Kind, text: str) -> None:
        self.add(Item(kind, text))
        self.follow_tail()

    # ----- live events --------------------------------------------------------------------

    def handle_bus_event(self, e: ev.BusEvent) -> None:
        self._handle(e)
        self.follow_tail()

    def _handle(self, e: ev.BusEvent) -> None:
        self._next.show_rest()  # a first text's rest goes before anything after it
        match e:
            case ev.TextDelta():
                reply = self._reply_for(e.slot)
                if self._next.first_pending:
                    self._next.first_text(reply, e.text, self.follow_tail)
                else:
                    reply.append(e.text)
            case ev.ThinkingDelta():
                self._thinking_for(e.slot).append(e.text)
            case ev.TurnStarted():
                self._gc_turn = gc_pace.hold(self)
                self._close_live()
                chips = encode_chips(e.attachments)
                extra = {"turn": str(e.turn_index), **({"chips": chips} if chips else {})}
                self._user_item = Item("user", e.prompt, extra=extra)
                self._user = self._next.take_user(e.prompt, decode_chips(chips))
                self._append(self._user_item, self._user)
                self.set_timer(USER_TURN_WAIT_S, self._next.show_waiting)
                self._follow = True
            case ev.RouteDecided():
                self.names[e.target] = e.agent_name
                if self._user is not None and self._user_item is not None:
                    self._user_item.agent_name = e.agent_name
                    self._user_item.detail = e.reason
                    self._user_item.extra["label"] = e.label
                    self._next.route(self._user, e.agent_name, e.reason, e.label)
                self._next.aim_reply(e.target, e.agent_name, self.palette)
            case ev.EscalationStarted():
                self._close_live()
                self.names["escalation"] = e.agent_name
                self.add(Item("marker", handoff_text(e)))
            case ev.ReplyCut():
                if self._reply is not None and self._reply.slot == e.slot:
                    self._reply.finish_with(e.kept)
                    if self._reply_item is not None:
                        self._reply_item.text = e.kept
                    self._reply = self._reply_item = None
            case ev.ToolCall():
                self._close_live()
                item = Item("tool", e.arguments, agent_name=e.name, slot=e.slot)
                line = ToolLine(e.name, e.arguments, e.call_id, e.slot, running=True)
                line.item = item
                self._append(item, line)
                self._tools[e.call_id] = line
            case ev.PermissionDecided(allowed=False):
                why = f": {e.reason}" if e.reason else ""
                self.add_line("warning", f"{e.tool_name} was not allowed{why}")
            case ev.ToolResult():
                tool = self._tools.get(e.call_id)
                if tool is not None:
                    tool.set_result(e.content, e.is_error)
            case ev.TurnCompleted():
                had_reply = self._reply is not None
                self._end_turn()
                if not had_reply and not e.text.strip():
                    self.add_line("notice", "[no response]")
            case ev.TurnFailed():
                self._end_turn()
                if e.cancelled:
                    self.add_line("notice", "[interrupted]")
                else:
                    who = f"{e.agent_name}: " if e.agent_name else ""
                    self.add_line("error", f"{who}{e.error}")
            case ev.Notice():
                self.add_line("notice" if e.level == "info" else e.level, e.message)
        for note in self._notes.feed(e, self.names):
            self.add_line(*note)

    def _end_turn(self) -> None:
        self._next.show_user()
        reply = self._reply
        self._close_live()
        self._end_tools()
        self._ready_next()
        gc_pace.release_later(self, self._gc_turn, lambda: bool(reply and reply.rendering))

    def _reply_for(self, slot: str) -> ReplyBlock:
        r = self._reply
        if r is None or r.slot != slot:
            self._close_live()
            name = self.names.get(slot, slot)
            self._reply_item = Item("reply", "", agent_name=name, slot=slot)
            spare = self._next.take_reply(slot, name)
            if spare is not None:  # mounted hidden: shown now, with the prompt if held
                self.items.append(self._reply_item)
                self._blocks.append(spare)
                self._next.show_reply(spare)
                self._prune()
                r = spare
            else:  # another agent's reply (the spare, if waiting, hides as it is added)
                r = ReplyBlock(name, slot, "", done=False, palette=self.palette)
                self._append(self._reply_item, r)
            self._reply = r
        return r

    def _thinking_for(self, slot: str) -> ThinkingBlock:
        if self._thinking is None:
            self._close_live()
            self._thinking_item = Item(
                "thinking", "", agent_name=self.names.get(slot, slot), slot=slot
            )
            self._thinking = ThinkingBlock("", done=False, expanded=self.show_thinking)
            self._append(self._thinking_item, self._thinking)
        return self._thinking

    def _end_tools(self) -> None:
        """The turn is over: calls that never reported stop spinning."""
        for line in self._tools.values():
            line.stop()
        self._tools = {}

    def _close_live(self, thinking: bool = True) -> None:
        if self._reply is not None:
            self._reply.finish()
            if self._reply_item is not None:
                self._reply_item.text = self._reply.text
        self._reply = None
        self._reply_item = None
        if thinking and self._thinking is not None:
            self._thinking.finish()
            if self._thinking_item is not None:
                self._thinking_item.text = self._thinking.view.text
            self._thinking = None
            self._thinking_item = None

    def show_turn(self, turn_index: int) -> bool:
        """Scroll to the user turn at 1-based history position ``turn_index`` (or the last
        user turn before it), mounting older blocks as needed."""
        while self._source is not None and self._source.remaining >= turn_index:
            self._pull_older()
        target = -1
        for i, it in enumerate(self.items):
            pos = int(it.extra.get("turn", "0") or 0)
            if it.kind == "user" and 0 < pos <= turn_index:
                target = i
        if target < 0:
            return False
        if target < self._first:
            self.load_older(self._first - target)
        widget = self._blocks[target - self._first]
        self._follow = False
        self.call_after_refresh(self.scroll_to_widget, widget, top=True, animate=False)
        return True

    # ----- presentation -------------------------------------------------------------------

    def set_show_thinking(self, show: bool) -> None:
        self.show_thinking = show
        for w in self.query(ThinkingBlock):
            w.set_expanded(show)

    def set_palette(self, palette: Palette) -> None:
        self.palette = palette
        for w in self.query(ReplyBlock):
            w.set_palette(palette)
