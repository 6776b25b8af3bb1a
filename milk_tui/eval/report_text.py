"""A ``Report`` as a plain-text table (80 columns) or Markdown.

The text quotes scenario names, prompts, route reasons and errors from the results files:
the caller writes it through an inert stream (the CLI's ``inert_out``), and every quoted
piece is cut here so that one long prompt never widens a table."""

from __future__ import annotations

import datetime as dt

from milk_tui.eval.metrics import ModeFigures, Ratio
from milk_tui.eval.report import Report
from milk_tui.model.terminal_text import inert

WIDTH = 80
MODE_HEAD = (
    "mode",
    "turns",
    "fail",
    "pass",
    "quality",
    "cost $",
    "in",
    "out",
    "cached",
    "hit≥2",
    "secs",
)
MODE_WIDTHS = (11, 5, 4, 4, 7, 8, 6, 6, 6, 5, 5)
"""Two spaces, then the columns one space apart: 79 columns."""


def pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.0f}%"


def num(v: float | None, digits: int = 2) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def tokens(n: int) -> str:
    if n >= 10_000_000:
        return f"{n / 1e6:.0f}M"
    if n >= 1_000_000:
        return f"{n / 1e6:.1f}M"
    if n >= 10_000:
        return f"{n / 1e3:.0f}k"
    if n >= 1_000:
        return f"{n / 1e3:.1f}k"
    return str(n)


def cut(text: str, width: int) -> str:
    """One line of at most ``width`` characters, inert, "…" where it was cut."""
    one = inert(" ".join(text.split()))
    return one if len(one) <= width else one[: max(0, width - 1)] + "…"


def mode_cells(m: ModeFigures) -> tuple[str, ...]:
    return (
        m.mode,
        str(m.turns),
        str(m.failed),
        pct(m.pass_rate),
        num(m.quality),
        f"{m.cost_usd:.4f}",
        tokens(m.prompt_tokens),
        tokens(m.completion_tokens),
        tokens(m.cached_tokens),
        pct(m.cache_hit_after_turn1),
        f"{m.seconds:.1f}" if m.seconds < 100 else f"{m.seconds:.0f}",
    )


def premise_rows(report: Report) -> list[tuple[str, str, str]]:
    """(figure, value, what it is over or why there is none)."""
    p = report.premise
    return [
        ("primary share", pct(p.primary_share.value), p.primary_share.why),
        ("cost routed ÷ escalation", _times(p.cost_ratio), p.cost_ratio.why),
        ("quality routed ÷ escalation", _times(p.quality_ratio), p.quality_ratio.why),
    ]


def _times(r: Ratio) -> str:
    return "-" if r.value is None else f"{r.value:.2f}×"


def routing_line(report: Report) -> str:
    r = report.routing
    return (
        f"agreement {pct(r.agreement)} · escalation recall {pct(r.escalation_recall)} · "
        f"precision {pct(r.escalation_precision)}"
    )


def heading(report: Report) -> str:
    run = report.run
    when = ""
    if run is not None and run.started > 0:
        stamp = dt.datetime.fromtimestamp(run.started, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        when = f"started {stamp}" + (", interrupted" if run.interrupted else "")
    return f"Eval report: {cut(str(report.folder), 60)}" + (f"\n{when}" if when else "")


def text_report(report: Report) -> str:
    out = [heading(report), "", "Premise"]
    for name, value, why in premise_rows(report):
        out.append(f"  {name:<28}{value:>6}  {cut(why, WIDTH - 38)}")
    out += ["", "Modes"]
    out.append(_row(MODE_HEAD))
    out += [_row(tuple(cut(c, w) for c, w in zip(mode_cells(m), MODE_WIDTHS, strict=True)))
            for m in report.modes]  # fmt: skip
    if not report.modes:
        out.append("  no turn recorded")
    out += ["", f"Routing ({report.routing.labelled} labelled routed turns answered)"]
    out += ["  " + routing_line(report)]
    out += _confusion_lines(report)
    if report.routing.wrong:
        out += ["", "Routed wrongly"]
        for w in report.routing.wrong:
            head = f"{w.scenario} turn {w.turn + 1}: labelled {w.label}, answered by {w.slot}"
            out.append("  " + cut(head, WIDTH - 2))
            out.append(f"    {cut(repr(w.prompt), WIDTH - 4)}")
            if w.route_reason:
                out.append(f"    why: {cut(w.route_reason, WIDTH - 9)}")
    if report.failed:
        out += ["", "Failed turns"]
        for t in report.failed:
            out.append("  " + cut(f"{t.scenario} {t.mode} turn {t.turn + 1}:", WIDTH - 2))
            out.append(f"    {cut(t.error, WIDTH - 4)}")
    if report.problems:
        out += ["", "Problems reading the results"]
        out += [f"  {cut(p, WIDTH - 2)}" for p in report.problems]
    return "\n".join(out) + "\n"


def _row(cells: tuple[str, ...]) -> str:
    first, *rest = cells
    return (
        "  "
        + f"{first:<{MODE_WIDTHS[0]}}"
        + "".join(f"{c:>{w + 1}}" for c, w in zip(rest, MODE_WIDTHS[1:], strict=True))
    )


def _confusion_lines(report: Report) -> list[str]:
    conf = report.routing.confusion
    slots = list(next(iter(conf.values()), {}))
    lines = [
        "  " + f"{'label ↓ · answered by →':<26}" + "".join(f"{cut(s, 12):>12}" for s in slots)
    ]
    for label, row in conf.items():
        lines.append("  " + f"{cut(label, 26):<26}" + "".join(f"{row[s]:>12}" for s in slots))
    return lines


# ----- Markdown ----------------------------------------------------------------------------


def _md(text: str, width: int = 80) -> str:
    return cut(text, width).replace("|", "\\|")


def markdown_report(report: Report) -> str:
    out = [f"# Eval report: `{_md(str(report.folder))}`", "", "## Premise", ""]
    out += ["| figure | value | over / why |", "|---|---:|---|"]
    out += [f"| {n} | {v} | {_md(w)} |" for n, v, w in premise_rows(report)]
    out += ["", "## Modes", "", "| " + " | ".join(MODE_HEAD) + " |",
            "|---|" + "---:|" * (len(MODE_HEAD) - 1)]  # fmt: skip
    out += ["| " + " | ".join(_md(c) for c in mode_cells(m)) + " |" for m in report.modes]
    conf = report.routing.confusion
    slots = list(next(iter(conf.values()), {}))
    out += ["", "## Routing", "", f"{report.routing.labelled} labelled routed turns answered: "
            + routing_line(report), ""]  # fmt: skip
    out += ["| label ↓ · answered by → | " + " | ".join(_md(s) for s in slots) + " |",
            "|---|" + "---:|" * len(slots)]  # fmt: skip
    out += [f"| {_md(k)} | " + " | ".join(str(v[s]) for s in slots) + " |" for k, v in conf.items()]
    if report.routing.wrong:
        out += ["", "### Routed wrongly", "", "| scenario | turn | label | answered by | prompt | why |",
                "|---|---:|---|---|---|---|"]  # fmt: skip
        out += [
            f"| {_md(w.scenario)} | {w.turn + 1} | {w.label} | {_md(w.slot)} | "
            f"{_md(w.prompt, 60)} | {_md(w.route_reason, 60)} |"
            for w in report.routing.wrong
        ]
    if report.failed:
        out += [
            "",
            "## Failed turns",
            "",
            "| scenario | mode | turn | error |",
            "|---|---|---:|---|",
        ]
        out += [f"| {_md(t.scenario)} | {_md(t.mode)} | {t.turn + 1} | {_md(t.error, 120)} |"
                for t in report.failed]  # fmt: skip
    if report.problems:
        out += ["", "## Problems reading the results", ""]
        out += [f"- {_md(p, 200)}" for p in report.problems]
    return "\n".join(out) + "\n"
