"""``milk-tui server status [--json] | start NAME | stop [NAME]``: the agents' ``run_cmd``
servers (docs/interfaces.md, "Local servers").  A server started here keeps running after
this command exits; ``stop`` finds it from any milk-tui process."""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import TYPE_CHECKING, TextIO

from milk_tui.cli.terminal_out import inert_out

if TYPE_CHECKING:
    from milk_tui.model import events as ev

EXIT_OK = 0
EXIT_FAILED = 1


def add_server_parser(subparsers: argparse._SubParsersAction) -> None:
    sp = subparsers.add_parser("server", help="the agents' local inference servers (run_cmd)")
    ssub = sp.add_subparsers(dest="server_cmd", required=True)
    ssub.add_parser("status", help="each agent with a run_cmd and its state").add_argument(
        "--json", action="store_true"
    )
    for verb, nargs, what in (
        ("start", None, "start an agent's server and wait until it answers"),
        ("stop", "?", "stop an agent's server (no name: every recorded one)"),
    ):
        ssub.add_parser(verb, help=what).add_argument("name", nargs=nargs)


def run_server(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    return asyncio.run(_run(args, inert_out(out, json=getattr(args, "json", False)), err))


class ServerProgress:
    """What a terminal shows of the ``Server*`` events (``-p`` and ``server start``) on
    stderr: one line each; the countdown only on a terminal, rewriting its own line."""

    def __init__(self, err: TextIO) -> None:
        self._raw = err
        self._err = inert_out(err)  # an error may quote the server's log
        self._tty = err.isatty()
        self._counting = False

    def __call__(self, event: ev.BusEvent) -> None:
        from milk_tui.facade.servers import countdown_line, event_line
        from milk_tui.model import events as ev

        if isinstance(event, ev.ServerCountdown):
            if self._tty:
                self._raw.write("\r")
                self._err.write(f"milk-tui: {countdown_line(event)} ")
                self._raw.flush()
                self._counting = True
            return
        line = event_line(event)
        if line is None:
            return
        if self._counting:
            self._raw.write("\r\x1b[K")  # clear the countdown line
            self._counting = False
        self._err.write(f"milk-tui: {line}\n")
        self._err.flush()


async def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from milk_tui.facade.servers import describe, open_servers

    async with open_servers(args.config, ServerProgress(err)) as servers:
        try:
            if args.server_cmd == "status":
                rows = await servers.status()
                if args.json:
                    out.write(json.dumps([r.__dict__ for r in rows], indent=2) + "\n")
                elif not rows:
                    out.write("no agent has a run_cmd\n")
                for r in [] if args.json else rows:
                    out.write(describe(r) + "\n")
                return EXIT_OK
            if args.server_cmd == "start":
                result = await servers.start(args.name)
                if result == "up":
                    out.write(f"the server of '{servers.agent(args.name).name}' answers already\n")
                return EXIT_FAILED if result == "failed" else EXIT_OK
            stopped = await servers.stop(args.name)
            if not stopped:
                out.write(
                    f"no server of '{args.name}' is running\n"
                    if args.name
                    else "no server is running\n"
                )
            return EXIT_OK
        except ValueError as e:
            inert_out(err).write(f"milk-tui: {e}\n")
            return EXIT_FAILED
