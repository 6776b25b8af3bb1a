"""``/metrics``: the local metrics file summed up per agent (turns, errors, tokens, cost,
p50/p95 seconds, first token, tool calls) and a plot of each turn's seconds and cost over
time (facade/metrics.py)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static
from textual_plotext import PlotextPlot

from milk_tui.facade.metrics import AgentFigures, LocalMetrics, MetricsReport
from milk_tui.model.terminal_text import inert
from milk_tui.tui.widgets.token_totals import fmt_tokens

COLUMNS = ("agent", "turns", "err", "in", "out", "cost $", "p50 s", "p95 s", "1st s", "tools")
"""``err``: failed turns; ``1st s``: median seconds to the first streamed token."""
PLOT_TURNS = 200
"""The plot shows at most the newest this many turns."""


def _cells(a: AgentFigures) -> tuple[str | Text, ...]:
    first = "-" if a.p50_first_token is None else f"{a.p50_first_token:.2f}"
    tools = f"{a.tool_calls}" + (f" ({a.tool_errors}✗)" if a.tool_errors else "")
    right = [str(a.turns), str(a.errors), fmt_tokens(a.prompt_tokens),
             fmt_tokens(a.completion_tokens), f"{a.cost_usd:.4f}", f"{a.p50_seconds:.2f}",
             f"{a.p95_seconds:.2f}", first, tools]  # fmt: skip
    # An agent's name comes from the config, a tool's from a server: shown inert.
    return (Text(inert(a.agent)), *(Text(c, justify="right") for c in right))


class MetricsScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    MetricsScreen {
        align: center middle;
        & > Vertical { width: 96%; height: 92%; border: thick $secondary; background: $surface; padding: 0 1; }
        .metrics-title { height: auto; color: $secondary; text-style: bold; }
        .metrics-path { height: auto; color: $text-muted; }
        DataTable { height: auto; max-height: 45%; }
        PlotextPlot { height: 1fr; min-height: 6; }
    }
    """
    BINDINGS = [Binding("escape,q", "close", "Close", id="milk.metrics.close")]

    def __init__(self, metrics: LocalMetrics) -> None:
        super().__init__()
        self.metrics = metrics
        self.report: MetricsReport | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Metrics — this machine, every session · Esc close",
                         classes="metrics-title", markup=False)  # fmt: skip
            yield Static("", id="metrics-path", classes="metrics-path", markup=False)
            table: DataTable[str | Text] = DataTable(
                id="metrics-table", cursor_type="none", zebra_stripes=True
            )
            table.add_columns(*COLUMNS)
            yield table
            yield PlotextPlot(id="metrics-plot")

    def on_mount(self) -> None:
        self.run_worker(self._load(), exclusive=True)

    async def _load(self) -> None:
        self.report = report = await self.metrics.areport()
        # The folder is named by /otel; here the file only (a screen shot shows no home).
        off = "" if self.metrics.enabled else " (otel.metrics is false: nothing is added)"
        self.query_one("#metrics-path", Static).update(
            f"{report.turns} turn{'' if report.turns == 1 else 's'} in otel/metrics.jsonl of "
            "the data dir (/otel names it; "
            f"/otel trim shortens it){off}"
        )
        table = self.query_one("#metrics-table", DataTable)
        table.clear()
        for a in report.agents:
            table.add_row(*_cells(a))
        if not report.agents:
            table.add_row(Text("no turns recorded yet", style="dim"), *[""] * (len(COLUMNS) - 1))
        self._plot(report)

    def _plot(self, report: MetricsReport) -> None:
        """Seconds per turn as a line and, when anything was priced, cost per turn beside it."""
        widget = self.query_one("#metrics-plot", PlotextPlot)
        plt = widget.plt
        plt.clear_figure()
        points = report.points[-PLOT_TURNS:]
        xs = [float(x) for x in range(1, len(points) + 1)]
        costs = [p.cost_usd for p in points]
        charts = 2 if any(costs) else 1
        if charts == 2:
            plt.subplots(1, 2)
        sec = plt.subplot(1, 1) if charts == 2 else plt
        sec.title(f"seconds per turn (last {len(points)})")
        if points:
            sec.plot(xs, [p.seconds for p in points], marker="braille")
            sec.ylim(0, max(p.seconds for p in points) * 1.05 or 1)
        if charts == 2:
            cost = plt.subplot(1, 2)
            cost.title("cost $ per turn")
            cost.plot(xs, costs, marker="braille")
            cost.ylim(0, max(costs) * 1.05)
        widget.refresh()

    def action_close(self) -> None:
        self.dismiss(None)
