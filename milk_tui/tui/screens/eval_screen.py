"""``/eval``: an eval run's report (milk_tui/eval/report.py) — the premise table first, then
the per-mode figures, the routing's confusion table, cost and quality per mode as bars, the
turns routed wrongly, failed turns and problems reading the files.  Everything quoted from
the results (scenario names, prompts, reasons, errors) is shown inert, never as markup."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static
from textual_plotext import PlotextPlot

from milk_tui.eval.report import Report
from milk_tui.eval.report_text import (
    MODE_HEAD,
    cut,
    heading,
    mode_cells,
    premise_rows,
    routing_line,
)

Cell = str | Text
FIGURES = (0, 1, 2, 3, 4, 5, 10)
TOKENS = (0, 6, 7, 8, 9)
"""The columns of ``MODE_HEAD`` each of the two mode tables shows: one would not fit 80
columns (a DataTable pads every cell)."""


def _table(id: str, *columns: str) -> DataTable[Cell]:
    table: DataTable[Cell] = DataTable(id=id, cursor_type="none", zebra_stripes=True)
    table.add_columns(*columns)
    return table


def _right(cells: tuple[str, ...]) -> list[Cell]:
    first, *rest = cells
    return [Text(first), *(Text(c, justify="right") for c in rest)]


class EvalScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    EvalScreen {
        align: center middle;
        & > Vertical { width: 96%; height: 92%; border: thick $secondary; background: $surface; padding: 0 1; }
        .eval-title { height: auto; color: $secondary; text-style: bold; }
        .eval-section { height: auto; margin-top: 1; text-style: bold; }
        .eval-note { height: auto; color: $text-muted; }
        VerticalScroll { height: 1fr; }
        DataTable { height: auto; }
        #eval-plots { height: 12; }
        PlotextPlot { width: 1fr; height: 12; }
    }
    """
    BINDINGS = [Binding("escape,q", "close", "Close", id="milk.eval.close")]

    def __init__(self, report: Report) -> None:
        super().__init__()
        self.report = report

    def compose(self) -> ComposeResult:
        r = self.report
        with Vertical():
            yield Static(Text(self._title()), classes="eval-title")
            with VerticalScroll():
                yield Static("Premise", classes="eval-section")
                yield _table("eval-premise", "figure", "value", "over / why")
                yield Static("Modes", classes="eval-section")
                yield _table("eval-modes", *(MODE_HEAD[i] for i in FIGURES))
                yield _table("eval-tokens", *(MODE_HEAD[i] for i in TOKENS))
                yield Static(
                    Text(f"Routing ({r.routing.labelled} labelled routed turns answered)"),
                    classes="eval-section",
                )
                yield Static(Text(routing_line(r)), classes="eval-note")
                conf = r.routing.confusion
                slots = list(next(iter(conf.values()), {}))
                yield _table("eval-confusion", "label ↓ · answered by →", *slots)
                yield Static("Cost and quality per mode", classes="eval-section")
                with Horizontal(id="eval-plots"):
                    yield PlotextPlot(id="eval-plot-cost")
                    yield PlotextPlot(id="eval-plot-quality")
                yield Static(f"Routed wrongly ({len(r.routing.wrong)})", classes="eval-section")
                yield _table("eval-wrong", "scenario", "turn", "label", "answered", "prompt", "why")
                if r.failed:
                    yield Static(f"Failed turns ({len(r.failed)})", classes="eval-section")
                    yield _table("eval-failed", "scenario", "mode", "turn", "error")
                if r.problems:
                    yield Static("Problems reading the results", classes="eval-section")
                    yield Static(
                        Text("\n".join(cut(p, 200) for p in r.problems)), classes="eval-note"
                    )

    def _title(self) -> str:
        """The run's folder by name (its path is under the data dir, or was just typed)."""
        when = heading(self.report).partition("\n")[2]
        return " · ".join(
            p for p in (f"Eval: {cut(self.report.folder.name, 40)}", when, "Esc close") if p
        )

    def on_mount(self) -> None:
        r = self.report
        premise = self.query_one("#eval-premise", DataTable)
        for name, value, why in premise_rows(r):
            premise.add_row(Text(name), Text(value, justify="right"), Text(cut(why, 60)))
        for id, columns in (("#eval-modes", FIGURES), ("#eval-tokens", TOKENS)):
            table = self.query_one(id, DataTable)
            for m in r.modes:
                cells = mode_cells(m)
                table.add_row(*_right(tuple(cut(cells[i], 16) for i in columns)))
            if not r.modes:
                table.add_row(Text("no turn recorded", style="dim"), *[""] * (len(columns) - 1))
        conf = self.query_one("#eval-confusion", DataTable)
        for label, row in r.routing.confusion.items():
            conf.add_row(
                Text(cut(label, 20)), *(Text(str(n), justify="right") for n in row.values())
            )
        wrong = self.query_one("#eval-wrong", DataTable)
        for w in r.routing.wrong:
            wrong.add_row(
                Text(cut(w.scenario, 24)),
                Text(str(w.turn + 1), justify="right"),
                Text(w.label),
                Text(cut(w.slot, 12)),
                Text(cut(w.prompt, 40)),
                Text(cut(w.route_reason, 40)),
            )
        if not r.routing.wrong:
            wrong.add_row(Text("none", style="dim"), "", "", "", "", "")
        if r.failed:
            failed = self.query_one("#eval-failed", DataTable)
            for t in r.failed:
                failed.add_row(
                    Text(cut(t.scenario, 24)),
                    Text(cut(t.mode, 12)),
                    Text(str(t.turn + 1), justify="right"),
                    Text(cut(t.error, 80)),
                )
        self._plot()

    def _plot(self) -> None:
        """Cost (bars, $) and judged quality (bars, 0–1) per mode, side by side: the premise
        is a mode that costs far less for nearly the same quality.  Two widgets rather than
        plotext subplots: a bar at a subplot's right edge ran over its neighbour's labels."""
        modes = [m for m in self.report.modes if m.turns]
        names = [m.mode for m in modes]
        xs = [float(x) for x in range(1, len(modes) + 1)]
        # Each plot's width from the terminal's (the screen is 96 % of it, two plots side
        # by side): the widgets are not laid out yet when the screen mounts.
        width = (self.app.size.width * 96 // 100 - 6) // 2
        charts = (
            ("cost", "cost $", [m.cost_usd for m in modes]),
            # A mode nobody judged has no bar (its quality is "-" in the table).
            ("quality", "quality 0–1 (no bar: not judged)", [m.quality or 0.0 for m in modes]),
        )
        for id, title, values in charts:
            plt = self.query_one(f"#eval-plot-{id}", PlotextPlot).plt
            plt.clear_figure()
            plt.title(title if modes else "no turn recorded")
            if not modes:
                continue
            plt.bar(xs, values, width=0.5)
            plt.xlim(0.4, len(xs) + 0.6)
            # plotext leaves out a label that would touch its neighbour: cut to the room
            # each bar has (the y labels take about 8 columns).
            room = max(4, (width - 8) // len(xs) - 1)
            plt.xticks(xs, [cut(n, room) for n in names])
            if id == "quality":
                plt.ylim(0, 1)

    def action_close(self) -> None:
        self.dismiss(None)
