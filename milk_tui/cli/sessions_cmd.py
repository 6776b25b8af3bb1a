"""``milk-tui sessions list|show``: the stored sessions, as text or JSON."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from milk_tui.cli.terminal_out import inert_out
from milk_tui.model.session import STATE_WORDS

if TYPE_CHECKING:
    from milk_tui.facade.sessions import SessionCatalog

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def add_sessions_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    common: Callable[[argparse.ArgumentParser], None],
    any_folder_help: str,
) -> None:
    sp = sub.add_parser("sessions", help="list or show sessions")
    common(sp)
    ssub = sp.add_subparsers(dest="sessions_cmd", metavar="COMMAND")
    sp.set_defaults(usage_of=sp)
    sl = ssub.add_parser("list", help="sessions of this folder (--all for every folder)")
    sl.add_argument("--all", action="store_true")
    sl.add_argument("--json", action="store_true")
    ss = ssub.add_parser("show", help="one session with its history")
    ss.add_argument("id")
    ss.add_argument("--json", action="store_true")
    ss.add_argument("--any-folder", action="store_true", help=any_folder_help)


def run_sessions(args: argparse.Namespace, out: TextIO) -> int:
    from milk_tui.facade.admin import open_admin

    if args.sessions_cmd is None:
        args.usage_of.print_help(sys.stderr)
        return EXIT_USAGE
    with open_admin() as admin:
        return _sessions_in(args, out, admin.sessions)


def _sessions_in(args: argparse.Namespace, out: TextIO, sessions: SessionCatalog) -> int:
    import datetime as dt

    out = inert_out(out, json=args.json)
    if args.sessions_cmd == "list":
        rows = sessions.recent(None if args.all else os.getcwd(), limit=200)
        if args.json:
            out.write(json.dumps([r.__dict__ for r in rows], indent=2) + "\n")
            return EXIT_OK
        if not rows:
            out.write("no sessions for this folder (use --all for every folder)\n")
            return EXIT_OK
        width = max(len(r.id) for r in rows)
        out.write(f"{'ID':<{width}}  {'LAST USED':<16}  {'QUESTIONS':>9}  {'NAME':<16} NEED\n")
        for r in rows:
            when = dt.datetime.fromtimestamp(r.last_used).strftime("%Y-%m-%d %H:%M")
            out.write(
                f"{r.id:<{width}}  {when:<16}  {r.questions:>9}  {r.name or '-':<16} "
                f"{r.current_need[:50]}\n"
            )
        return EXIT_OK
    # Showing reads only: a full id means one session wherever its folder is.
    sid = sessions.find(os.getcwd(), args.id, any_folder=args.any_folder, full_id_anywhere=True)
    s = sessions.load(sid) if sid else None
    err = inert_out(sys.stderr)  # a session name or a warning may quote untrusted text
    for warning in sessions.take_warnings():
        print(f"milk-tui: {warning}", file=err)
    if s is None:
        elsewhere = not args.any_folder and sessions.find(os.getcwd(), args.id, any_folder=True)
        hint = " in this folder (another folder has one: add --any-folder)" if elsewhere else ""
        print(f"milk-tui: no session with id or name '{args.id}'{hint}", file=err)
        return EXIT_FAILED
    if args.json:
        out.write(json.dumps(s.to_go_json(), indent=2, ensure_ascii=False) + "\n")
        return EXIT_OK
    out.write(
        f"session:   {s.id}\nname:      {s.name}\ncwd:       {s.cwd}\n"
        f"state:     {STATE_WORDS.get(s.state, s.state.value)}\n"
        f"questions: {s.question_count()}\nneed:      {s.current_need}\n"
    )
    for t in s.history:
        who = "user" if t.role == "user" else (t.agent_name or t.agent)
        out.write(f"\n{'━' * 40}\n{who}\n{t.content}\n")
    return EXIT_OK
