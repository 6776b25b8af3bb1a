"""``milk-tui permissions list [--json] | grant TOOL... | revoke TOOL...`` for the current
folder (the grants the permission check reads; docs/interfaces.md, "Permissions")."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from milk_tui.cli.terminal_out import inert_out

EXIT_OK, EXIT_FAILED = 0, 1


def add_permissions_parser(subparsers: argparse._SubParsersAction) -> None:
    pp = subparsers.add_parser("permissions", help="tools allowed without asking in this folder")
    psub = pp.add_subparsers(dest="permissions_cmd", required=True)
    ls = psub.add_parser("list", help="the tools granted for this folder")
    ls.add_argument("--json", action="store_true")
    gr = psub.add_parser(
        "grant",
        help="allow without asking: TOOL (inside this folder), TOOL:/abs/path (that path "
        "only), bash:WORDS (commands starting with those words), bash=COMMAND",
    )
    gr.add_argument("tools", nargs="+", metavar="GRANT")
    rv = psub.add_parser("revoke", help="ask again before these grants")
    rv.add_argument("tools", nargs="+", metavar="GRANT")


def run_permissions(args: argparse.Namespace, cwd: str, out: TextIO, err: TextIO) -> int:
    out, err = inert_out(out, json=getattr(args, "json", False)), inert_out(err)
    from milk_tui.facade.permissions import for_folder  # loads when the command runs

    perms = for_folder(cwd)
    if args.permissions_cmd == "grant":
        tools = perms.grant(args.tools)
        out.write(f"granted in {perms.cwd}: {', '.join(tools)}\n")
        return EXIT_OK
    if args.permissions_cmd == "revoke":
        result = perms.revoke(args.tools)
        for line in result.lines(perms.cwd):
            if line.startswith("not granted"):  # nothing changed for these: said on stderr
                err.write(f"milk-tui: {line}\n")
            else:
                out.write(f"{line}\n")
        return EXIT_OK if result.revoked else EXIT_FAILED
    listed = perms.show()
    for warning in listed.warnings:
        err.write(f"milk-tui: warning: {warning}\n")
    if args.json:
        body = {"cwd": listed.cwd, "allowed_tools": list(listed.tools), "file": listed.file}
        out.write(json.dumps(body, indent=2) + "\n")
    elif not listed.tools:
        out.write(f"no tools granted in {listed.cwd}\n")
    else:
        out.write("".join(f"{t}\n" for t in listed.tools))
    return EXIT_OK
