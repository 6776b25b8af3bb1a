"""``/usage``: tokens, cost and cache hits per model and role for this session, this folder
and all time — a table each, and a plot of tokens (bars) and cost (line) over time: per
turn for the session, per day otherwise (facade/usage.py)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static, TabbedContent, TabPane
from textual_plotext import PlotextPlot

from milk_tui.facade.usage import (
    SCOPE_TITLES,
    SCOPES,
    ScopeUsage,
    UsageReport,
    UsageRow,
    UsageScope,
)
from milk_tui.model.terminal_text import inert
from milk_tui.tui.widgets.token_totals import fmt_tokens

COLUMNS = ("model", "role", "turns", "input", "out", "cached", "hit", "cost $")
"""``input`` is the whole input (cached included), as the status line's ↑ counts it."""
MAX_TICKS = 8
"""x labels shown at most; between them the bars still show every turn or day."""


def _cells(r: UsageRow, model: str | None = None) -> tuple[str | Text, ...]:
    pct = r.cache_hit_pct
    right = [
        str(r.turns),
        fmt_tokens(r.input_tokens),
        fmt_tokens(r.completion),
        fmt_tokens(r.cache_read),
        "-" if pct is None else f"{pct:.0f}%",
        f"{r.cost_usd:.4f}",
    ]
    # Model names come from servers' replies: shown inert, never as markup.
    return (
        Text(inert(r.model if model is None else model)),
        Text(inert(r.role if model is None else "")),
        *(Text(c, justify="right") for c in right),
    )


class UsageScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    UsageScreen {
        align: center middle;
        & > Vertical { width: 96%; height: 92%; border: thick $secondary; background: $surface; padding: 0 1; }
        .usage-title { height: auto; color: $secondary; text-style: bold; }
        TabbedContent, TabPane { height: 1fr; }
        TabPane { padding: 0; }
        DataTable { height: auto; max-height: 45%; }
        PlotextPlot { height: 1fr; min-height: 6; }
    }
    """
    BINDINGS = [
        Binding("escape,q", "close", "Close", id="milk.usage.close"),
        Binding("1", "scope('session')", "This session", show=False),
        Binding("2", "scope('folder')", "This folder", show=False),
        Binding("3", "scope('all')", "All time", show=False),
    ]

    def __init__(self, report: UsageReport, *, utc_offset: int | None = None) -> None:
        super().__init__()
        self.report = report
        self.utc_offset = utc_offset
        """Seconds east of UTC that days start at (tests pin it); None: this machine's."""
        self.scopes: list[ScopeUsage] = []

    def _wanted(self) -> list[UsageScope]:
        return [s for s in SCOPES if s != "session" or self.report.session_id]

    def compose(self) -> ComposeResult:
        keys = " · ".join(f"{i} {SCOPE_TITLES[s].lower()}" for i, s in enumerate(SCOPES, 1))
        with Vertical():
            yield Static(f"Usage — {keys} · Esc close", classes="usage-title", markup=False)
            with TabbedContent(id="usage-tabs"):
                for scope in self._wanted():
                    with TabPane(SCOPE_TITLES[scope], id=f"usage-{scope}"):
                        table: DataTable[str | Text] = DataTable(
                            id=f"usage-table-{scope}", cursor_type="none", zebra_stripes=True
                        )
                        table.add_columns(*COLUMNS)
                        yield table
                        yield PlotextPlot(id=f"usage-plot-{scope}")

    def on_mount(self) -> None:
        self.run_worker(self._load(), exclusive=True)

    async def _load(self) -> None:
        self.scopes = await self.report.ascopes(utc_offset=self.utc_offset)
        for su in self.scopes:
            self._fill(su)

    def _fill(self, su: ScopeUsage) -> None:
        table = self.query_one(f"#usage-table-{su.scope}", DataTable)
        table.clear()
        for r in su.rows:
            table.add_row(*_cells(r))
        if su.rows:
            table.add_row(*_cells(su.total, "total"))
        else:
            table.add_row(Text("no usage recorded yet", style="dim"), *[""] * (len(COLUMNS) - 1))
        self._plot(su)

    def _plot(self, su: ScopeUsage) -> None:
        """Tokens as bars and, when anything was priced, cost as a line in a second plot
        beside it (a line drawn over the bars would cut holes in them; one above the other
        leaves each a few rows on an 80×24 terminal)."""
        widget = self.query_one(f"#usage-plot-{su.scope}", PlotextPlot)
        plt = widget.plt
        plt.clear_figure()
        per = "turn" if su.scope == "session" else "day"
        costs = [p.cost_usd for p in su.series]
        xs = [float(x) for x in range(1, len(su.series) + 1)]
        step = max(1, -(-len(xs) // MAX_TICKS))
        ticks = (xs[::step], [_tick(su.series[int(x) - 1].label, per) for x in xs[::step]])
        charts = 2 if any(costs) else 1
        if charts == 2:
            plt.subplots(1, 2)
        tok = plt.subplot(1, 1) if charts == 2 else plt
        tok.title(f"tokens per {per}")
        if su.series:
            tokens = [p.tokens for p in su.series]
            tok.bar(xs, tokens, width=0.6)
            top = max(tokens) or 1
            tok.yticks(
                [top * i / 2 for i in range(3)], [fmt_tokens(top * i // 2) for i in range(3)]
            )
            tok.xlim(0.4, len(xs) + 0.6)
            tok.xticks(*ticks)
        if charts == 2:
            cost = plt.subplot(1, 2)
            cost.title(f"cost $ per {per}")
            cost.plot(xs, costs, marker="braille")
            top_cost = max(costs)
            cost.ylim(0, top_cost * 1.05)
            cost.yticks(
                [top_cost * i / 2 for i in range(3)], [f"{top_cost * i / 2:.4f}" for i in range(3)]
            )
            cost.xlim(0.4, len(xs) + 0.6)
            cost.xticks(*ticks)
        widget.refresh()

    def action_scope(self, scope: str) -> None:
        if scope in self._wanted():  # a str from the binding
            self.query_one(TabbedContent).active = f"usage-{scope}"

    def action_close(self) -> None:
        self.dismiss(None)


def _tick(label: str, per: str) -> str:
    """``01-31`` for a day (the year is in the table's scope), the turn number as is."""
    return label[5:] if per == "day" and len(label) == 10 else label
