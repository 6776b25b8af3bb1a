"""Escalation status: agent, hand-off mode, downgrade and why, session id, brief, tokens and
cost, and a live timeline of hand-offs.  ``last_context`` keeps the exact context text of
the last hand-off for the "what the escalation agent saw" view.

Its view model comes from bus events only: ``session_changed`` (after a load and every
turn) for the recorded state, the hand-off and usage events for what happens live.
"""

from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.events import Resize
from textual.widgets import Static

from milk_tui.model import events as ev
from milk_tui.tui.widgets.handoff_text import MODE_LABEL, REASON_LABEL, handoff_text
from milk_tui.tui.widgets.pace import Paced
from milk_tui.tui.widgets.token_totals import TokenTotals

if TYPE_CHECKING:
    from textual.widgets import RichLog

TIMELINE_LINES = 200
"""The timeline is a log, not a history: a few hundred hand-offs are plenty on screen."""


def stamp() -> str:
    """Timeline time label (a function so snapshot tests can pin it)."""
    return time.strftime("%H:%M:%S ")


def _is_escalation_role(role: str) -> bool:
    return role == "escalation" or role.startswith("escalation:")


class EscalationPane(Vertical):
    DEFAULT_CSS = """
    EscalationPane { height: auto; max-height: 60%; border: round $foreground 25%; border-subtitle-color: $text-muted; border-title-color: $secondary; padding: 0 1; }
    EscalationPane > #esc-body { height: auto; }
    EscalationPane > RichLog { height: auto; max-height: 8; background: transparent; scrollbar-size-vertical: 0; overflow-x: hidden; }
    """

    def __init__(self, agent_name: str, id: str | None = None, *, missing: str = "") -> None:
        super().__init__(id=id)
        self.border_title = "Escalation"
        self.border_subtitle = "F4: what it saw"
        self.agent_name = agent_name
        self.missing = missing
        """Why the agent cannot run (its program not found; none configured), or ""."""
        self.session_id = ""
        self.mode = ""
        self.resumed = False
        """The hand-off continues the agent's own session (returning, resume, continuation)."""
        self.downgraded = False
        self.reasons: list[str] = []
        self.local_turns_since = 0
        """Hand-off figure for the downgrade reason ("N local turns since")."""
        self.turns_since = 0
        """Primary turns since the last escalation, as recorded."""
        self.escalation_session_id = ""
        self.brief = ""
        self.totals = TokenTotals()
        self.active = False
        self.tool_calls = 0
        """Tool calls the escalation agent made in the current (or last) hand-off."""
        self.last_target = ""
        """Where the last turn went; a primary turn after an escalation is a return (↩)."""
        self.last_context = ""
        self.body = Static("", id="esc-body", markup=False)
        self._shown: Text | None = None  # what body shows: an update lays out the screen
        self._entries: deque[Text] = deque(maxlen=TIMELINE_LINES)
        self._wrapped_at = 0
        self.timeline: RichLog | None = None
        """Mounted with the first entry: a session starts with none, and the log's module
        (Rich's pretty-printer with it) is not worth loading before the first frame."""
        self.paced = Paced(self, self._redraw)

    def compose(self) -> ComposeResult:
        yield self.body

    def on_mount(self) -> None:
        if self._entries:  # logged before the pane was mounted
            self._mount_timeline()
        self._redraw()

    def renamed(self, agent_name: str, missing: str = "") -> None:
        """Its agent is not the one it was painted with (a start card the config corrected,
        a local server found after the first frame), or cannot run (``missing``)."""
        self.agent_name, self.missing = agent_name, missing
        self.paced.request()

    def _show_session(self, e: ev.SessionChanged) -> None:
        if e.session_id != self.session_id:
            self.session_id = e.session_id
            self.mode = ""
            self.resumed = False
            self.downgraded = False
            self.reasons = []
            self.active = False
            self.last_target = e.last_user_agent
            self.last_context = e.last_escalation_context
            self._entries.clear()
            if self.timeline is not None:
                self.timeline.clear()
        self.escalation_session_id = e.escalation_session_id
        self.brief = e.escalation_brief
        self.turns_since = e.local_turns_since_escalation
        totals = TokenTotals()
        for u in e.tokens:
            if _is_escalation_role(u.role):
                totals.add(u.prompt, u.completion, u.cache_read, u.cache_creation, u.cost_usd)
        self.totals = totals

    def handle_bus_event(self, e: ev.BusEvent) -> None:
        match e:
            case ev.SessionChanged():
                self._show_session(e)
            case ev.EscalationStarted():
                self.agent_name = e.agent_name
                self.mode = e.mode
                self.resumed = e.resume
                self.downgraded = e.downgraded
                self.reasons = list(e.downgrade_reasons)
                self.local_turns_since = e.local_turns_since
                self.last_context = e.context_text
                if e.escalation_session_id:
                    self.escalation_session_id = e.escalation_session_id
                if e.brief:
                    self.brief = e.brief
                self.active = True
                self.tool_calls = 0
                self.last_target = "escalation"
                self._log(handoff_text(e))
            case ev.EscalationFinished():
                self.active = False
                if e.escalation_session_id:
                    self.escalation_session_id = e.escalation_session_id
                status = "ok" if e.ok else "failed"
                extra = " · asks a question" if e.ends_with_question else ""
                cost = f" · ${e.cost_usd:.4f}" if e.cost_usd else ""
                self._log(f"← {e.agent_name} {status}{cost}{extra}")
            case ev.RouteDecided():
                returning = e.target == "primary" and self.last_target == "escalation"
                self.last_target = e.target
                if not returning:
                    return
                self._log(f"↩ {e.agent_name} · {e.reason}")
            case ev.ToolCall(slot="escalation"):
                self.tool_calls += 1
            case ev.Usage():
                if _is_escalation_role(e.role):
                    self.totals.add(
                        e.prompt_tokens,
                        e.completion_tokens,
                        e.cache_read,
                        e.cache_creation,
                        e.cost_usd,
                    )
            case ev.TurnFailed() if self.active:
                self.active = False  # a cancelled or failed turn ends the escalation with it
                self._log(f"← {self.agent_name} {'cancelled' if e.cancelled else 'failed'}")
            case ev.TurnCompleted():
                self.active = False
            case ev.AgentsChanged(escalation=name) if name:
                self.agent_name, self.missing = name, e.escalation_missing  # a swap
            case ev.TurnFailed() | ev.StateChanged():
                pass
            case _:
                return
        self.paced.busy = self.active
        self.paced.request()

    def _log(self, line: str) -> None:
        entry = Text(stamp() + line, style="dim")
        self._entries.append(entry)
        if self.timeline is not None:
            self.timeline.write(entry)
        elif self.is_mounted:
            self._mount_timeline()

    def _mount_timeline(self) -> None:
        from textual.widgets import RichLog

        self.timeline = RichLog(
            max_lines=TIMELINE_LINES, wrap=True, markup=False, min_width=10, id="esc-timeline"
        )
        self.mount(self.timeline)
        for entry in self._entries:
            self.timeline.write(entry)

    def on_resize(self, event: Resize) -> None:
        """A log wraps lines when they are written; lines written while the pane was hidden
        or narrower are wrapped again at the new width.  The body fits its lines to the
        width too (``_redraw``)."""
        self._redraw()
        if event.size.width != self._wrapped_at and self.timeline is not None:
            self._wrapped_at = event.size.width
            self.timeline.clear()
            for entry in self._entries:
                self.timeline.write(entry)

    def _redraw(self) -> None:
        t = Text()
        t.append(self.agent_name, style="bold")
        if self.missing:
            t.append(f"  {self.missing}", style="bold yellow")
        if self.active:
            t.append("  ● running", style="bold green")
        if self.mode:
            t.append("\nmode: ", style="dim")
            t.append(MODE_LABEL.get(self.mode, self.mode))
        if self.downgraded:
            why = ", ".join(
                REASON_LABEL.get(r, r).format(n=self.local_turns_since) for r in self.reasons
            )
            t.append("\ndowngraded to a fresh start: ", style="yellow")
            t.append(why or "returning not possible", style="yellow")
        if self.tool_calls:
            t.append("\ntool calls: ", style="dim")
            t.append(str(self.tool_calls))
        sid = self.escalation_session_id
        width = self.body.content_size.width
        suffix = (" (resumed)" if self.resumed else " (new)") if sid and self.mode else ""
        t.append("\nsession: ", style="dim")
        # One line, its state included: on a narrow pane the id gives way, not the state.
        room = width - len("session: ") - len(suffix) if width else 18
        shown = sid[:18] if room >= 18 else _cut(sid, max(9, room))  # 18: enough to tell
        t.append(shown if sid else "(new on next hand-off)")
        t.append(suffix, style="dim")
        if self.brief:
            # On a short terminal one line (F4 shows all of it); else up to 160 characters.
            short = self.is_mounted and self.screen.has_class("-short") and width
            limit = width - len("brief: ") if short else 160
            t.append("\nbrief: ", style="dim")
            t.append(_cut(" ".join(self.brief.split()) if short else self.brief, limit))
        u = self.totals
        if not u.is_empty():
            t.append(f"\ntokens {u.arrows()}", style="dim")
            t.append(f"  cost ${u.cost_usd:.4f}", style="dim")
            if u.cache():
                t.append(f"  {u.cache()}", style="dim")
        since = self.turns_since
        if since:
            t.append(
                f"\n{since} local turn{'s' if since != 1 else ''} since last escalation",
                style="dim",
            )
        if t != self._shown:  # turn-state events mostly change nothing here
            self._shown = t
            self.body.update(t)


def _cut(text: str, cells: int) -> str:
    """``text`` in at most ``cells`` characters, its end marked "…" when cut."""
    return text if len(text) <= cells else text[: max(0, cells - 1)] + "…"
