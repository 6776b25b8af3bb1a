"""Current need pane: the need, whether it may already be fulfilled, who set it and when,
and the needs of this session before it.

Its view model is built from bus events only: ``session_changed`` gives the recorded state
(after a load and after every turn), ``need_changed`` the need an agent sets mid-turn.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from milk_tui.model import events as ev

MAX_EARLIER = 8


@dataclass
class NeedView:
    need: str = ""
    set_at: int = 0
    """1-based position of the user turn that recorded the need."""
    producer: str = ""
    stale: bool = False
    records: int = 0
    """Turns in the recorded history; ``set_at`` beyond it means "this turn"."""
    question: int = 0
    """The question the need was recorded in, of ``questions`` answered."""
    questions: int = 0


class NeedPane(Vertical):
    DEFAULT_CSS = """
    NeedPane { height: auto; max-height: 50%; border: round $foreground 25%; border-subtitle-color: $text-muted; border-title-color: $primary; padding: 0 1; }
    NeedPane > #need-body { height: auto; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Current need"
        self.view = NeedView()
        self.session_id = ""
        self.earlier: list[str] = []
        self.body = Static("", id="need-body", markup=False)

    def compose(self) -> ComposeResult:
        yield self.body

    def on_mount(self) -> None:
        self.refresh_need()

    def handle_bus_event(self, e: ev.BusEvent) -> None:
        match e:
            case ev.SessionChanged():
                if e.session_id != self.session_id:
                    self.session_id = e.session_id
                    self.earlier = []
                self.view = NeedView(
                    e.need,
                    e.need_set_at,
                    e.need_producer,
                    e.need_stale,
                    e.records,
                    e.need_question,
                    e.exchanges,
                )
            case ev.NeedChanged():
                before = e.previous or self.view.need
                old = [n for n in self.earlier if n not in (e.need, before)]
                if before and before != e.need and not e.rolled_back:
                    old.append(before)
                self.earlier = old[-MAX_EARLIER:]
                self.view = NeedView(e.need, e.set_at, e.producer, False, self.view.records)
            case _:
                return
        self.refresh_need()

    def refresh_need(self) -> None:
        v = self.view
        t = Text()
        if v.need:
            t.append(v.need + "\n", style="bold")
            if v.stale:
                t.append("may already be fulfilled", style="bold yellow")
            else:
                t.append("current", style="bold green")
            who = v.producer or "?"
            if v.producer == "user" and v.set_at > v.records:  # /need TEXT between turns
                t.append("\nset by you with /need", style="dim")
            elif v.set_at > v.records:
                t.append(f"\nset by {who} this turn", style="dim")
            else:
                t.append(f"\nset by {who} in question {v.question} of {v.questions}", style="dim")
        else:
            t.append("no need recorded yet", style="dim italic")
        if self.earlier:
            t.append("\n\nbefore:", style="dim bold")
            for n in reversed(self.earlier):
                t.append(f"\n· {n}", style="dim")
        self.body.update(t)
