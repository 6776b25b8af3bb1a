"""``milk-tui eval report [--results DIR] [--json] [--markdown]``: what an eval run says
about the premise (docs/eval.md; the JSON object: docs/interfaces.md, "Eval report")."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from milk_tui.cli.terminal_out import inert_out

EXIT_OK, EXIT_FAILED = 0, 1


def add_report_parser(eval_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rp = eval_sub.add_parser("report", help="the premise table, per-mode figures and routing")
    rp.add_argument(
        "--results",
        metavar="DIR",
        default="",
        help="a results folder; default (or 'latest'): the newest run under the data dir's eval/",
    )
    form = rp.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="one JSON object")
    form.add_argument("--markdown", action="store_true", help="Markdown tables")


def run_report(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    out, err = inert_out(out, json=args.json), inert_out(err)
    from milk_tui.eval.load import resolve
    from milk_tui.eval.report import build_report, report_json
    from milk_tui.eval.report_text import markdown_report, text_report

    try:
        folder = resolve(args.results)
    except ValueError as e:
        err.write(f"milk-tui: eval report: {e}\n")
        return EXIT_FAILED
    report = build_report(folder)
    if args.json:
        out.write(json.dumps(report_json(report), indent=2) + "\n")
    elif args.markdown:
        out.write(markdown_report(report))
    else:
        out.write(text_report(report))
    return EXIT_OK
