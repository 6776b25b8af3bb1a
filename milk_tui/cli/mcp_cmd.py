"""``milk-tui mcp list [--json] | tools NAME | auth NAME``: the configured MCP servers,
started as a session would start them (docs/interfaces.md, "MCP servers")."""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import TYPE_CHECKING, TextIO

from milk_tui.cli.terminal_out import inert_out

if TYPE_CHECKING:  # the MCP SDK's modules load when the command runs, not with the parser
    from milk_tui.facade.mcp import McpServers

EXIT_OK = 0
EXIT_FAILED = 1


def add_mcp_parser(subparsers: argparse._SubParsersAction) -> None:
    mp = subparsers.add_parser("mcp", help="the configured MCP servers and their tools")
    msub = mp.add_subparsers(dest="mcp_cmd", required=True)
    ls = msub.add_parser("list", help="each server with its state")
    ls.add_argument("--json", action="store_true")
    tl = msub.add_parser("tools", help="the tools of one server, as the agents see them")
    tl.add_argument("name")
    au = msub.add_parser("auth", help="connect to one server and say whether it accepts us")
    au.add_argument("name")


def run_mcp(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    # Server names, tool names, descriptions and a dead server's stderr are the servers'
    # text: every line is written inert (milk_tui/cli/terminal_out.py).
    out = inert_out(out, json=getattr(args, "json", False))
    return asyncio.run(_run(args, out, inert_out(err)))


async def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from milk_tui.facade.mcp import describe, open_servers

    def say(message: str) -> None:
        if "authorize" in message:  # the sign-in page: the user must see it
            err.write(f"milk-tui: {message}\n")
            err.flush()

    async with open_servers(args.config, on_warning=say) as servers:
        if args.mcp_cmd == "list":
            return _list(servers, args.json, out)
        status = next((s for s in servers.statuses() if s.name.lower() == args.name.lower()), None)
        if status is None:
            known = ", ".join(s.name for s in servers.statuses()) or "none configured"
            err.write(f"milk-tui: no mcp server named '{args.name}' (servers: {known})\n")
            return EXIT_FAILED
        if args.mcp_cmd == "auth":
            if status.state != "ready":
                status = await servers.sign_in(status.name) or status
            ok = status.state == "ready"
            (out if ok else err).write(
                f"{'' if ok else 'milk-tui: '}mcp server '{status.name}': {describe(status)}\n"
            )
            return EXIT_OK if ok else EXIT_FAILED
        tools = servers.tools(status.name) or []
        if status.state != "ready":
            err.write(f"milk-tui: mcp server '{status.name}' is {describe(status)}\n")
            return EXIT_FAILED
        for t in tools:
            first = t.description.splitlines()[0] if t.description else ""
            out.write(f"{t.name}  {first}\n")
        return EXIT_OK


def _list(servers: McpServers, as_json: bool, out: TextIO) -> int:
    from milk_tui.facade.mcp import describe

    rows = servers.statuses()
    if as_json:
        body = [
            {"name": s.name, "transport": s.transport, "state": s.state,
             "tools": list(s.tools), "error": s.error}
            for s in rows
        ]  # fmt: skip
        out.write(json.dumps(body, indent=2) + "\n")
        return EXIT_OK
    if not rows:
        out.write("no mcp_servers configured\n")
        return EXIT_OK
    width = max(len(s.name) for s in rows)
    for s in rows:
        out.write(f"{s.name:<{width}}  {s.transport:<5}  {describe(s)}\n")
    return EXIT_OK
