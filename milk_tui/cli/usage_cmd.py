"""``milk-tui usage [--json] [--session ID | --folder | --all]``: token usage per model and
role — turns, tokens, cost, cache hits — for a session, this folder and all time
(docs/interfaces.md, "Usage").  Without a scope flag: the folder's latest session, the
folder and all time, as ``/usage`` shows them."""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING, TextIO

from milk_tui.cli.terminal_out import inert_out

if TYPE_CHECKING:  # the facade loads when the command runs, not with the parser
    from milk_tui.facade.usage import UsageRow, UsageScope

EXIT_OK = 0
EXIT_FAILED = 1
_HEAD = ("MODEL", "ROLE", "TURNS", "INPUT", "COMPLETION", "CACHED", "HIT", "COST $")


def add_usage_parser(subparsers: argparse._SubParsersAction) -> None:
    up = subparsers.add_parser("usage", help="token usage and cost per model and role")
    up.add_argument("--json", action="store_true", help="a JSON list of rows")
    scope = up.add_mutually_exclusive_group()
    scope.add_argument("--session", metavar="ID", help="one session (name, id or id prefix)")
    scope.add_argument("--folder", action="store_true", help="every session of this folder")
    scope.add_argument("--all", action="store_true", help="every folder")
    up.add_argument("--any-folder", action="store_true", help="with --session: any folder")


def run_usage(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    out, err = inert_out(out, json=args.json), inert_out(err)
    cwd = os.getcwd()
    from milk_tui.facade.admin import open_admin

    with open_admin() as admin:
        scopes: list[UsageScope]
        if args.folder or args.all:
            sid, scopes = "", ["folder" if args.folder else "all"]
        else:
            sid = admin.sessions.find(cwd, args.session or "", any_folder=args.any_folder) or ""
            if args.session and not sid:
                err.write(f"milk-tui: no session with id or name '{args.session}'\n")
                return EXIT_FAILED
            scopes = ["session"] if args.session else ["session", "folder", "all"]
            if not sid:
                scopes.remove("session")  # a folder without sessions yet
        report = admin.usage(cwd, sid)
        tables = [(s, report.rows(s)) for s in scopes]
    if args.json:
        listed = [r.as_json(s) for s, rs in tables for r in rs]
        out.write(json.dumps(listed, indent=2) + "\n")
        return EXIT_OK
    for i, (scope, rows) in enumerate(tables):
        out.write(("\n" if i else "") + _title(scope, sid, cwd) + "\n")
        out.write(format_table(rows) + "\n")
    return EXIT_OK


def _title(scope: UsageScope, sid: str, cwd: str) -> str:
    where = {"session": f" ({sid})", "folder": f" ({cwd})", "all": ""}[scope]
    from milk_tui.facade.usage import SCOPE_TITLES

    return SCOPE_TITLES[scope] + where


def _pct(r: UsageRow) -> str:
    p = r.cache_hit_pct
    return "-" if p is None else f"{p:.0f}%"


def format_table(rows: list[UsageRow]) -> str:
    """Aligned columns and a total line; "no usage recorded" when empty."""
    from milk_tui.facade.usage import total_row

    if not rows:
        return "  no usage recorded"
    body = [
        (r.model, r.role, str(r.turns), f"{r.input_tokens:,}", f"{r.completion:,}",
         f"{r.cache_read:,}", _pct(r), f"{r.cost_usd:.4f}")
        for r in [*rows, total_row(rows)]
    ]  # fmt: skip
    body[-1] = ("total", "", *body[-1][2:])
    widths = [max(len(c[i]) for c in [_HEAD, *body]) for i in range(len(_HEAD))]
    lines = []
    for cells in [_HEAD, *body]:
        left = [f"{c:<{w}}" for c, w in zip(cells[:2], widths[:2], strict=True)]
        right = [f"{c:>{w}}" for c, w in zip(cells[2:], widths[2:], strict=True)]
        lines.append("  " + "  ".join(left + right).rstrip())
    return "\n".join(lines)
