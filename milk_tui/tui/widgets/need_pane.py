"""Current need pane: the need, whether it may already be fulfilled, who set it and when,
and the needs of this session before it."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from milk_tui.model import events as ev
from milk_tui.model.session import Session

MAX_EARLIER = 8


class NeedPane(Vertical):
    DEFAULT_CSS = """
    NeedPane { height: auto; max-height: 50%; border: round $foreground 25%; border-subtitle-color: $text-muted; border-title-color: $primary; padding: 0 1; }
    NeedPane > #need-body { height: auto; }
    """

    def __init__(self, session: Session, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Current need"
        self.session = session
        self.earlier: list[str] = []
        self.body = Static("", id="need-body", markup=False)

    def compose(self) -> ComposeResult:
        yield self.body

    def on_mount(self) -> None:
        self._last_need = self.session.current_need
        self.refresh_need()

    def set_session(self, session: Session) -> None:
        self.session = session
        self.earlier = []
        self._last_need = session.current_need
        self.refresh_need()

    def handle_bus_event(self, e: ev.BusEvent) -> None:
        t = e.type  # type: ignore[attr-defined]
        if t == "need_changed":
            new = e.need  # type: ignore[attr-defined]
            before = e.previous or self._last_need  # type: ignore[attr-defined]
            old = [n for n in self.earlier if n not in (new, before)]
            if before and before != new:
                old.append(before)
            self.earlier = old[-MAX_EARLIER:]
            self._last_need = new
            self.refresh_need()
        elif t in ("turn_completed", "turn_failed", "turn_started"):
            self.refresh_need()

    _last_need = ""
    """The need as of the last event seen (the session may already be further along)."""

    def refresh_need(self) -> None:
        s = self.session
        t = Text()
        if s.current_need:
            t.append(s.current_need + "\n", style="bold")
            if s.need_is_stale():
                t.append("may already be fulfilled", style="bold yellow")
            else:
                t.append("current", style="bold green")
            who = s.need_producer or "?"
            if s.current_need_set_at > len(s.history):
                t.append(f"\nset by {who} this turn", style="dim")
            else:
                t.append(
                    f"\nset by {who} at turn {s.current_need_set_at} of {len(s.history)}",
                    style="dim",
                )
        else:
            t.append("no need recorded yet", style="dim italic")
        if self.earlier:
            t.append("\n\nbefore:", style="dim bold")
            for n in reversed(self.earlier):
                t.append(f"\n· {n}", style="dim")
        self.body.update(t)
