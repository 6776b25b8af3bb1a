"""The status line: where the turn went and why, the agent label, a spinner, tokens and cost.

Everything shown here comes from bus events (route_decided, state_changed, usage,
turn_*); the spinner timer runs only while a turn is busy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text
from textual.timer import Timer
from textual.widget import Widget

from milk_tui.model import events as ev
from milk_tui.model.session import TokenUsage

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
SPIN_S = 0.08
"""80 ms per frame: visibly alive without costing a repaint every frame."""


STATE_LABEL = {
    "ROUTING": "ready",
    "LOCAL": "primary",
    "ESCALATION": "escalation",
    "ESCALATION_WAITING": "escalation (waiting for your answer)",
}
"""Idle labels by session state: after an escalation asks a question, the next prompt goes back to it."""


def fmt_tokens(n: int) -> str:
    return str(n) if n < 1000 else f"{n / 1000:.1f}k"


@dataclass
class RoleTotals:
    prompt: int = 0
    completion: int = 0
    cost: float = 0.0


@dataclass
class StatusModel:
    target: str = ""
    agent_name: str = ""
    reason: str = ""
    label: str = ""
    state: str = "ROUTING"
    busy: bool = False
    tool: str = ""
    hint: str = ""
    roles: dict[str, RoleTotals] = field(default_factory=dict)


class StatusLine(Widget):
    """Not a ``Static``: ``Static.update`` asks for a layout pass, and the spinner redraws
    12 times a second while replies stream; a fixed one-line widget only needs a repaint."""

    DEFAULT_CSS = """
    StatusLine { height: 1; background: $panel; color: $text; padding: 0 1; }
    StatusLine.-busy { color: $text; }
    StatusLine.-permission { background: $warning 40%; }
    """

    spin = True
    """False keeps the spinner on its first frame (deterministic snapshots)."""

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self._text = Text()
        self.model = StatusModel()
        self._frame = 0
        self._timer: Timer | None = None

    def on_mount(self) -> None:
        self._timer = self.set_interval(SPIN_S, self._spin, pause=True)
        self._redraw()

    def _set_totals(self, tokens: tuple[TokenUsage, ...]) -> None:
        roles: dict[str, RoleTotals] = {}
        for u in tokens:
            r = roles.setdefault(u.role.split(":")[0], RoleTotals())
            r.prompt += u.prompt
            r.completion += u.completion
            r.cost += u.cost_usd
        self.model.roles = roles

    def set_hint(self, hint: str) -> None:
        self.model.hint = hint
        self._redraw()

    def handle_bus_event(self, e: ev.BusEvent) -> None:
        m = self.model
        match e:
            case ev.SessionChanged():
                self._set_totals(e.tokens)
                m.state = e.state or m.state
            case ev.TurnStarted():
                m.busy, m.tool, m.hint = True, "", ""
                m.target = m.reason = m.label = ""
                if self._timer and self.spin:
                    self._timer.resume()
            case ev.RouteDecided():
                m.target, m.agent_name, m.reason, m.label = (
                    e.target,
                    e.agent_name,
                    e.reason,
                    e.label,
                )
            case ev.EscalationStarted():
                if m.target == "primary":
                    m.reason, m.label = f"{m.agent_name} handed over", ""
                m.target, m.agent_name = "escalation", e.agent_name
            case ev.StateChanged():
                m.state = e.state
            case ev.ToolCall():
                m.tool = e.name
            case ev.ToolResult():
                m.tool = ""
            case ev.Usage():
                r = m.roles.setdefault(e.role.split(":")[0], RoleTotals())
                r.prompt += e.prompt_tokens
                r.completion += e.completion_tokens
                r.cost += e.cost_usd
            case ev.PermissionRequested():
                self.add_class("-permission")
            case ev.TurnCompleted() | ev.TurnFailed():
                m.busy, m.tool = False, ""
                self.remove_class("-permission")
                if self._timer:
                    self._timer.pause()
            case _:
                return
        self._redraw()

    def _spin(self) -> None:
        self._frame = (self._frame + 1) % len(SPINNER)
        self._redraw()

    def _redraw(self) -> None:
        m = self.model
        t = Text(no_wrap=True, overflow="ellipsis")
        if m.busy:
            t.append(SPINNER[self._frame] + " ", style="bold yellow")
            t.append(f"→ {m.target or 'routing'}", style="bold")
        else:
            t.append("● ", style="dim")
            t.append(STATE_LABEL.get(m.state, m.state.lower()), style="bold")
            if m.agent_name:
                t.append("  last:", style="dim")
        if m.agent_name:
            t.append(" " + m.agent_name)
            if m.label:
                t.append(f" ({m.label})", style="italic")
        if m.hint:  # before the why and the totals: a long line ends in an ellipsis
            t.append("  " + m.hint + " ", style="bold yellow")
        if m.tool:
            t.append(f" [{m.tool}]", style="dim")
        if m.reason:
            t.append(" · why: " + m.reason, style="dim")
        for name in ("primary", "escalation"):
            r = m.roles.get(name)
            if r is None or not (r.prompt or r.completion or r.cost):
                continue
            t.append(f"  │ {name} ↑{fmt_tokens(r.prompt)}↓{fmt_tokens(r.completion)}", style="dim")
            if r.cost:
                t.append(f" ${r.cost:.4f}", style="dim")
        self._text = t
        self.refresh()

    def render(self) -> Text:
        return self._text

    @property
    def plain(self) -> str:
        return self._text.plain
