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
from textual.events import Resize
from textual.widgets import Static

from milk_tui.model import events as ev
from milk_tui.tui.widgets.fit_line import KEEP, fit

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

    def on_resize(self, event: Resize) -> None:
        """A short terminal gives the pane a fixed height (main.tcss): its lines are laid
        out again for it, and again when it has room once more."""
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
        rows, width = self.content_size.height, self.content_size.width
        if self.is_mounted and self.screen.has_class("-short") and v.need and rows and width:
            self.body.update(self._compact(rows, width))
            return
        t = Text()
        if v.need:
            t.append(v.need + "\n", style="bold")
            t.append_text(self._state())
            t.append("\n")
            t.append(self._provenance(), style="dim")
        else:
            t.append("no need recorded yet", style="dim italic")
        if self.earlier:
            t.append("\n\nbefore:", style="dim bold")
            for n in reversed(self.earlier):
                t.append(f"\n· {n}", style="dim")
        self.body.update(t)

    def _state(self) -> Text:
        if self.view.stale:
            return Text("may already be fulfilled", style="bold yellow")
        return Text("current", style="bold green")

    def _provenance(self) -> str:
        v = self.view
        who = v.producer or "?"
        if v.producer == "user" and v.set_at > v.records:  # /need TEXT between turns
            return "set by you with /need"
        if v.set_at > v.records:
            return f"set by {who} this turn"
        return f"set by {who} in question {v.question} of {v.questions}"

    def _compact(self, rows: int, width: int) -> Text:
        """The pane on a short terminal: the need in the rows left (its end cut with "…",
        never silently), then its state and who set it on one line that always shows."""
        lines = list(Text(self.view.need, style="bold").wrap(self.app.console, width))
        keep = max(1, rows - 1)
        if len(lines) > keep:
            lines = lines[:keep]
            last = lines[-1]
            last.truncate(max(1, width - 1))
            last.append("…")
            lines[-1] = last
        t = Text("\n").join(lines)
        v = self.view
        by = self._provenance().removeprefix("set ")
        where = ""
        if v.set_at <= v.records:  # "by primary, question 3" (its "of N" is in the header)
            by, where = f"by {v.producer or '?'}", f", question {v.question}"
        t.append("\n")
        parts = [(KEEP, self._state()), (1, Text(f" · {by}", style="dim"))]
        t.append_text(fit([*parts, (2, Text(where, style="dim"))], width))
        return t
