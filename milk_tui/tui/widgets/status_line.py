"""The status line: where the turn went and why, the agent label, a spinner, tokens and cost.

Everything shown here comes from bus events (route_decided, state_changed, usage,
turn_*); the spinner timer runs only while a turn is busy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text
from textual.timer import Timer
from textual.widget import Widget

from milk_tui.facade.servers import countdown_line
from milk_tui.model import events as ev
from milk_tui.model.session import STATE_WORDS, TokenUsage
from milk_tui.tui.widgets.fit_line import KEEP, fit
from milk_tui.tui.widgets.pace import Paced
from milk_tui.tui.widgets.spinner import SPIN_S, SPINNER
from milk_tui.tui.widgets.token_totals import TokenTotals


@dataclass
class TurnStatus:
    """What the running (or last) turn shows; each new turn starts from a blank one."""

    busy: bool = False
    target: str = ""
    reason: str = ""
    label: str = ""
    tool: str = ""
    tools: int = 0
    """Tool calls this turn."""
    hint: str = ""


@dataclass
class StatusModel:
    state: str = "ROUTING"
    agent_name: str = ""
    """The agent of the running turn, or of the last one while idle."""
    turn: TurnStatus = field(default_factory=TurnStatus)
    roles: dict[str, TokenTotals] = field(default_factory=dict)
    pinned: str = ""
    """The slot ``/primary`` or ``/escalate`` pinned; "" while routing is automatic."""
    skip_permissions: bool = False
    """``/skip-permissions on``: every tool call runs without asking (shown while on)."""


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
        self._parts: list[tuple[int, Text]] = []
        self.model = StatusModel()
        self._frame = 0
        self._timer: Timer | None = None
        self.paced = Paced(self, self._redraw)

    def on_mount(self) -> None:
        self._timer = self.set_interval(SPIN_S, self._spin, pause=True)
        self._redraw()

    def _set_totals(self, tokens: tuple[TokenUsage, ...]) -> None:
        roles: dict[str, TokenTotals] = {}
        for u in tokens:
            roles.setdefault(u.role.split(":")[0], TokenTotals()).add(
                u.prompt, u.completion, u.cache_read, u.cache_creation, u.cost_usd
            )
        self.model.roles = roles

    def set_skip_permissions(self, on: bool) -> None:
        self.model.skip_permissions = on
        self._redraw()

    def set_hint(self, hint: str) -> None:
        self.model.turn.hint = hint
        self._redraw()

    def handle_bus_event(self, e: ev.BusEvent) -> None:
        m = self.model
        turn = m.turn
        match e:
            case ev.SessionChanged():
                self._set_totals(e.tokens)
                m.state = e.state or m.state
            case ev.TurnStarted():
                m.turn = TurnStatus(busy=True)
                if self._timer and self.spin:
                    self._timer.resume()
            case ev.RouteDecided():
                turn.target, turn.reason, turn.label = e.target, e.reason, e.label
                m.agent_name = e.agent_name
            case ev.EscalationStarted():
                if turn.target == "primary":
                    turn.reason, turn.label = f"{m.agent_name} handed over", ""
                turn.target, m.agent_name = "escalation", e.agent_name
            case ev.StateChanged():
                m.state = e.state
            case ev.RoutingPinned():
                m.pinned = e.pinned
            case ev.ToolCall():
                turn.tool = e.name
                turn.tools += 1
            case ev.ToolResult():
                turn.tool = ""
            case ev.Usage():
                m.roles.setdefault(e.role.split(":")[0], TokenTotals()).add(
                    e.prompt_tokens, e.completion_tokens, e.cache_read, e.cache_creation, e.cost_usd
                )
            case ev.PermissionRequested():
                self.add_class("-permission")
            case ev.PermissionDecided():
                self.remove_class("-permission")
            case ev.ServerCountdown():
                turn.hint = countdown_line(e)
            case ev.ServerReady() | ev.ServerFailed():
                turn.hint = ""
            case ev.TurnCompleted() | ev.TurnFailed():
                turn.busy, turn.tool = False, ""
                self.remove_class("-permission")
                if self._timer:
                    self._timer.pause()
            case _:
                return
        self.paced.busy = m.turn.busy
        self.paced.request()

    def _spin(self) -> None:
        self._frame = (self._frame + 1) % len(SPINNER)
        self._redraw()

    def _redraw(self) -> None:
        m, turn = self.model, self.model.turn
        state, agent, tools, why = Text(), Text(), Text(), Text()
        if turn.busy:
            state.append(SPINNER[self._frame] + " ", style="bold yellow")
            state.append(f"→ {turn.target or 'routing'}", style="bold")
        else:
            state.append("● ", style="dim")
            state.append(
                STATE_WORDS.get(m.state, m.state.lower()),
                style="bold",
            )
            if m.agent_name:
                agent.append("  last:", style="dim")
        if m.agent_name:
            agent.append(" " + m.agent_name)
            if turn.label:
                agent.append(f" ({turn.label})", style="italic")
        hints = Text()
        if m.pinned:
            hints.append(f"  pinned: {m.pinned} (/auto unpins)", style="bold")
        if m.skip_permissions:
            hints.append("  skip-permissions ", style="bold red")
        if turn.hint:
            hints.append("  " + turn.hint + " ", style="bold yellow")
        if turn.tools:
            tools.append(f" ⚙{turn.tools}", style="dim")
        if turn.tool:
            tools.append(f" [{turn.tool}]", style="dim")
        if turn.reason:
            why.append(" · why: " + turn.reason, style="dim")
        per_role: list[tuple[int, Text]] = []
        for name in ("primary", "escalation"):
            r = m.roles.get(name)
            if r is None or r.is_empty():
                continue
            totals = Text(f"  │ {name} {r.arrows()}", style="dim")
            if r.cost_usd:
                totals.append(f" ${r.cost_usd:.4f}", style="dim")
            per_role += [
                (KEEP, totals),
                (3, Text(f" {r.cache()}" if r.cache() else "", style="dim")),
            ]
        # Ranks say what a narrow terminal gives up first: the why, then the cache hit
        # rates and the tool calls, then the agent's name; the state, hints and the totals
        # with the cost stay.
        self._parts = [(KEEP, state), (2, agent), (KEEP, hints), (3, tools), (4, why),
                       *per_role]  # fmt: skip
        self._text = fit(self._parts, 1 << 30)
        self.refresh()

    def render(self) -> Text:
        width = self.content_size.width
        if not width or self._text.cell_len <= width:
            return self._text
        return fit(self._parts, width)

    @property
    def plain(self) -> str:
        return self._text.plain
