"""``milk-tui tasks list|add TEXT|done ID [--json] [--global] [--session NAME]``.

The session is the folder's most recent one (the one a plain ``milk-tui`` there resumes)
unless ``--session`` names another; ``--global`` works on the global list.  Rows: ``id``,
``text``, ``status``, ``scope``.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, TextIO

from milk_tui.cli.terminal_out import inert_out
from milk_tui.facade.errors import StorageError

if TYPE_CHECKING:
    from milk_tui.facade.admin import Admin
    from milk_tui.model.task import Task

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def add_tasks_parser(subparsers: argparse._SubParsersAction) -> None:
    tp = subparsers.add_parser("tasks", help="list, add or complete tasks")
    tsub = tp.add_subparsers(dest="tasks_cmd", metavar="COMMAND")
    tp.set_defaults(usage_of=tp)

    def sub(name: str, help_: str) -> argparse.ArgumentParser:
        p = tsub.add_parser(name, help=help_)
        p.add_argument("--json", action="store_true", help="print JSON instead of a table")
        p.add_argument("--global", dest="global_", action="store_true", help="the global list")
        p.add_argument("--session", metavar="NAME", default="", help="a session's name or id")
        return p

    sub("list", "this folder's session's tasks and the global ones")
    sub("add", "add a task").add_argument("text", nargs="+", metavar="TEXT")
    sub("done", "mark a task done").add_argument("id", metavar="ID")


def _line(t: Task) -> str:
    return f"{t.id}  {t.status:<11}  {t.scope:<7}  {t.text}"


def run_tasks(args: argparse.Namespace, admin: Admin, cwd: str, out: TextIO, err: TextIO) -> int:
    out, err = inert_out(out), inert_out(err)
    if not getattr(args, "tasks_cmd", None):
        args.usage_of.print_help(out)
        return EXIT_USAGE
    try:
        sid = "" if args.global_ else admin.sessions.find(cwd, args.session) or ""
        if not sid and not args.global_ and (args.session or args.tasks_cmd != "list"):
            what = f"no session {args.session!r} here" if args.session else "no session here yet"
            err.write(f"milk-tui: {what}; use --global\n")
            return EXIT_FAILED
        tasks = admin.tasks(sid)
        if args.tasks_cmd == "list":
            rows = tasks.list(global_only=args.global_)
            if args.json:
                out.write(json.dumps([t.row() for t in rows], ensure_ascii=False) + "\n")
            else:
                out.write("".join(_line(t) + "\n" for t in rows) or "(no tasks)\n")
            return EXIT_OK
        if args.tasks_cmd == "add":
            task = tasks.add(" ".join(args.text), global_=args.global_)
        else:
            task = tasks.done(args.id)
    except (ValueError, StorageError) as e:
        err.write(f"milk-tui: {e}\n")
        return EXIT_FAILED
    out.write(
        json.dumps(task.row(), ensure_ascii=False) + "\n" if args.json else _line(task) + "\n"
    )
    return EXIT_OK
