"""``milk-tui metrics [--json]`` and ``milk-tui metrics trim [DAYS]``: the local metrics file
(``<data dir>/otel/metrics.jsonl``) summed up per agent, as ``/metrics`` shows it, or
shortened to its last DAYS days, as ``/otel trim`` does (facade/metrics.py)."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from milk_tui.cli.terminal_out import inert_out

EXIT_OK, EXIT_FAILED = 0, 1
_HEAD = ("AGENT", "TURNS", "ERRORS", "IN", "OUT", "COST $", "P50 S", "P95 S", "1ST TOK S", "TOOLS")


def add_metrics_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("metrics", help="turns, tokens, cost and seconds per agent")
    p.add_argument("action", nargs="?", default="show", choices=("show", "trim"),
                   help="show (default), or trim: keep the last DAYS days")  # fmt: skip
    p.add_argument("days", nargs="?", type=float, default=None, help="with trim (default 7)")
    p.add_argument("--json", action="store_true", help="the figures as one JSON object")


def run_metrics(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from milk_tui.config.otel import OtelConfig
    from milk_tui.facade.metrics import TRIM_DAYS, LocalMetrics

    out, err = inert_out(out, json=args.json), inert_out(err)
    local = LocalMetrics(OtelConfig(), None)
    if args.action == "trim":
        days = TRIM_DAYS if args.days is None else args.days
        if days < 0:
            err.write("milk-tui: metrics trim: DAYS must be 0 or more\n")
            return EXIT_FAILED
        try:
            kept, removed = local.trim(days)
        except OSError as e:
            err.write(f"milk-tui: cannot trim {local.path}: {e.strerror or e}\n")
            return EXIT_FAILED
        out.write(f"{local.path}: kept {kept} turns of the last {days:g} days, removed {removed}\n")
        return EXIT_OK
    if args.days is not None:
        err.write("milk-tui: metrics: DAYS goes with trim\n")
        return EXIT_FAILED
    report = local.report()
    if args.json:
        out.write(json.dumps(report.as_json(), indent=2) + "\n")
        return EXIT_OK
    if not report.agents:
        out.write(f"no turns recorded yet in {report.path}\n")
        return EXIT_OK
    rows = [_HEAD] + [
        (a.agent, str(a.turns), str(a.errors), str(a.prompt_tokens), str(a.completion_tokens),
         f"{a.cost_usd:.4f}", f"{a.p50_seconds:.2f}", f"{a.p95_seconds:.2f}",
         "-" if a.p50_first_token is None else f"{a.p50_first_token:.2f}", str(a.tool_calls))
        for a in report.agents
    ]  # fmt: skip
    widths = [max(len(r[i]) for r in rows) for i in range(len(_HEAD))]
    for r in rows:
        out.write("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                            for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip() + "\n")  # fmt: skip
    out.write(f"{report.turns} turns in {report.path}\n")
    return EXIT_OK
