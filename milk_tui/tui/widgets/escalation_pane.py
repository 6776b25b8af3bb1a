"""Escalation status: agent, hand-off mode, downgrade and why, session id, brief, tokens and
cost, and a live timeline of hand-offs.  ``last_context`` keeps the exact context text of
the last hand-off for the "what the escalation agent saw" view."""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import RichLog, Static

from milk_tui.model import events as ev
from milk_tui.model.session import Session
from milk_tui.tui.widgets.conversation import MODE_LABEL, REASON_LABEL, handoff_text
from milk_tui.tui.widgets.status_line import fmt_tokens

TIMELINE_LINES = 200
"""The timeline is a log, not a history: a few hundred hand-offs are plenty on screen."""


def stamp() -> str:
    """Timeline time label (a function so snapshot tests can pin it)."""
    return time.strftime("%H:%M:%S ")


class EscalationPane(Vertical):
    DEFAULT_CSS = """
    EscalationPane { height: auto; max-height: 60%; border: round $foreground 25%; border-subtitle-color: $text-muted; border-title-color: $secondary; padding: 0 1; }
    EscalationPane > #esc-body { height: auto; }
    EscalationPane > RichLog { height: auto; max-height: 8; background: transparent; scrollbar-size-vertical: 0; overflow-x: hidden; }
    """

    def __init__(self, session: Session, agent_name: str, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Escalation"
        self.border_subtitle = "F4: what it saw"
        self.session = session
        self.agent_name = agent_name
        self.mode = ""
        self.downgraded = False
        self.reasons: list[str] = []
        self.local_turns_since = 0
        self.active = False
        self.last_target = ""
        """Where the last turn went; a primary turn after an escalation is a return (↩)."""
        self.last_context = ""
        self.body = Static("", id="esc-body", markup=False)
        self.timeline = RichLog(
            max_lines=TIMELINE_LINES, wrap=True, markup=False, min_width=10, id="esc-timeline"
        )
        self._load_from_session()

    def compose(self) -> ComposeResult:
        yield self.body
        yield self.timeline

    def on_mount(self) -> None:
        self._redraw()

    def _load_from_session(self) -> None:
        self.last_target = next(
            (t.agent for t in reversed(self.session.history) if t.role == "user"), ""
        )
        for t in reversed(self.session.history):
            if t.role == "user" and t.agent == "escalation" and t.context_text:
                self.last_context = t.context_text
                break

    def set_session(self, session: Session) -> None:
        self.session = session
        self.mode = ""
        self.downgraded = False
        self.reasons = []
        self.last_context = ""
        self._load_from_session()
        self.timeline.clear()
        self._redraw()

    def handle_bus_event(self, e: ev.BusEvent) -> None:
        t = e.type  # type: ignore[attr-defined]
        if t == "escalation_started":
            self.agent_name = e.agent_name  # type: ignore[attr-defined]
            self.mode = e.mode  # type: ignore[attr-defined]
            self.downgraded = e.downgraded  # type: ignore[attr-defined]
            self.reasons = list(e.downgrade_reasons)  # type: ignore[attr-defined]
            self.local_turns_since = e.local_turns_since  # type: ignore[attr-defined]
            self.last_context = e.context_text  # type: ignore[attr-defined]
            self.active = True
            self.last_target = "escalation"
            self._log(handoff_text(e))  # type: ignore[arg-type]
        elif t == "escalation_finished":
            self.active = False
            status = "ok" if e.ok else "failed"  # type: ignore[attr-defined]
            extra = " · asks a question" if e.ends_with_question else ""  # type: ignore[attr-defined]
            cost = f" · ${e.cost_usd:.4f}" if e.cost_usd else ""  # type: ignore[attr-defined]
            self._log(f"← {e.agent_name} {status}{cost}{extra}")  # type: ignore[attr-defined]
        elif t == "route_decided":
            returning = e.target == "primary" and self.last_target == "escalation"  # type: ignore[attr-defined]
            self.last_target = e.target  # type: ignore[attr-defined]
            if not returning:
                return
            self._log(f"↩ {e.agent_name} · {e.reason}")  # type: ignore[attr-defined]
        elif t not in ("usage", "turn_completed", "turn_failed", "state_changed"):
            return
        self._redraw()

    def _log(self, line: str) -> None:
        self.timeline.write(Text(stamp() + line, style="dim"))

    def _redraw(self) -> None:
        s = self.session
        t = Text()
        t.append(self.agent_name, style="bold")
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
        sid = s.escalation_session_id
        t.append("\nsession: ", style="dim")
        t.append(sid[:18] if sid else "(new on next hand-off)")
        if sid and self.mode:
            resumed = self.mode in ("resume", "continuation")
            t.append(" (resumed)" if resumed else " (new)", style="dim")
        if s.escalation_brief:
            brief = (
                s.escalation_brief
                if len(s.escalation_brief) < 160
                else s.escalation_brief[:159] + "…"
            )
            t.append("\nbrief: ", style="dim")
            t.append(brief)
        u = s.tokens_by_role_prefix("escalation")
        if u.prompt or u.completion or u.cost_usd:
            t.append(f"\ntokens ↑{fmt_tokens(u.prompt)}↓{fmt_tokens(u.completion)}", style="dim")
            t.append(f"  cost ${u.cost_usd:.4f}", style="dim")
        since = s.local_turns_since_last_escalation()
        if since:
            t.append(
                f"\n{since} local turn{'s' if since != 1 else ''} since last escalation",
                style="dim",
            )
        self.body.update(t)
