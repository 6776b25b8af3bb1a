"""``milk-tui memory …`` and ``milk-tui import-go`` (wired into ``milk_tui/cli/__init__.py``).

"Session" scope means the most recent session of the current folder, the one a plain
``milk-tui`` there would resume.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from milk_tui.cli.terminal_out import inert_out
from milk_tui.model.percept import DEFAULT_SCOPE, Percept

if TYPE_CHECKING:
    from milk_tui.facade.admin import Admin
    from milk_tui.facade.facts import Facts

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def add_memory_parser(subparsers: argparse._SubParsersAction) -> None:
    mp = subparsers.add_parser("memory", help="list, add, edit, forget or pin remembered facts")
    msub = mp.add_subparsers(dest="memory_cmd", metavar="COMMAND")
    mp.set_defaults(usage_of=mp)

    def sub(name: str, help_: str) -> argparse.ArgumentParser:
        p = msub.add_parser(name, help=help_)
        p.add_argument("--json", action="store_true", help="print JSON instead of a table")
        return p

    ls = sub("list", "facts visible in this folder's session (global + session)")
    ls.add_argument(
        "--scope",
        choices=("session", "global", "all"),
        default=None,
        help="session: this folder's session only; global; all: every session",
    )
    ls.add_argument("--search", metavar="Q", default="", help="only facts containing these words")
    ls.add_argument("--limit", type=int, default=200)
    ad = sub("add", "remember a fact (as the user)")
    ad.add_argument("content", nargs="+", metavar="TEXT", help="the fact (quotes optional)")
    ad.add_argument("--scope", choices=("session", "global"), default=DEFAULT_SCOPE,
                    help=f"default: {DEFAULT_SCOPE} (as in the TUI's add dialog)")  # fmt: skip
    ad.add_argument("--consumer", choices=("all", "primary", "escalation"), default="all")
    ad.add_argument("--pin", action="store_true", help="pinned: never decays, always global")
    ed = sub("edit", "change a fact (undoable in the TUI)")
    ed.add_argument("id")
    ed.add_argument("text", nargs="*", metavar="TEXT", help="the new content (or --content)")
    ed.add_argument("--content", help="the new content (the same as TEXT)")
    ed.add_argument("--consumer", choices=("all", "primary", "escalation"))
    ed.add_argument("--weight", type=_weight, help="0 to 1")
    ed.add_argument("--scope", choices=("session", "global"))
    fg = sub("forget", "delete a fact, by id or by text (refused when the text matches several)")
    fg.add_argument("id", metavar="ID|TEXT")
    pn = sub("pin", "pin a fact (or --off to unpin)")
    pn.add_argument("id")
    pn.add_argument("--off", action="store_true")
    ud = sub("undo", "undo the last edit, pin or delete (of ID, or of any fact)")
    ud.add_argument("id", nargs="?")


def add_import_parser(subparsers: argparse._SubParsersAction) -> None:
    ip = subparsers.add_parser("import-go", help="import sessions and memory of a Go milk install")
    ip.add_argument("path", nargs="?", default="~/.milk", help="Go milk folder (default ~/.milk)")
    ip.add_argument("--json", action="store_true")


def _weight(raw: str) -> float:
    """A weight as the store keeps it; out-of-range values are refused, not clamped."""
    try:
        w = float(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{raw}' is not a number (0 to 1)") from None
    if not 0.0 <= w <= 1.0:
        raise argparse.ArgumentTypeError(f"{raw} is out of range: a weight is from 0 to 1")
    return w


def _pid(raw: str) -> int:
    ref = raw.strip().lstrip("#")
    if not ref.isdigit():
        raise ValueError(f"'{raw}' is not a fact id (use e.g. 12 or #12)")
    return int(ref)


def _edit_content(args: argparse.Namespace) -> str | None:
    """``memory edit ID TEXT…`` (its words joined, as ``memory add``'s) and ``--content
    TEXT`` are one thing; both at once must agree."""
    text = " ".join(args.text) if args.text else None
    if text is not None and args.content is not None and text != args.content:
        raise ValueError("give the new text once: as TEXT or as --content, not both")
    return text if text is not None else args.content


def _table(rows: list[Percept], out: TextIO) -> None:
    if not rows:
        out.write("(no facts)\n")
        return
    out.write(f"{'ID':>6}  {'SCOPE':<7} {'W':>4}  {'PIN':<3} {'BY':<10} {'FOR':<10} CONTENT\n")
    for p in rows:
        content = p.content.replace("\n", " ")
        content = content if len(content) <= 70 else content[:67] + "..."
        out.write(f"{p.id:>6}  {p.scope:<7} {p.weight:4.2f}  {'*' if p.core else '':<3} "
                  f"{p.producer:<10} {p.consumer:<10} {content}\n")  # fmt: skip


def _show(p: Percept | None, args: argparse.Namespace, out: TextIO, verb: str) -> None:
    if p is None:
        return
    if args.json:
        out.write(json.dumps(p.to_json(), ensure_ascii=False) + "\n")
    else:
        out.write(f"{verb} #{p.id}: {p.content}\n")


def _forget_target(facts: Facts, raw: str, err: TextIO) -> int | None:
    """The id ``memory forget`` deletes: ``12``/``#12``, or the one fact matching the text
    (as ``/forget TEXT`` in the TUI); None after saying why there is none."""
    key = raw.strip().lstrip("#")
    if key.isdigit():
        return int(key)
    hits = facts.find(key, limit=10) if key else []
    if not hits:
        err.write(f"milk-tui: no remembered fact matches '{raw}'\n")
        return None
    if len(hits) > 1:
        err.write(f"milk-tui: {len(hits)} facts match '{raw}'; forget one by id:\n")
        for p in hits:
            err.write(f"  #{p.id}  {p.content.replace(chr(10), ' ')[:100]}\n")
        return None
    return hits[0].id


def run_memory(
    args: argparse.Namespace,
    admin: Admin,
    cwd: str,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    out = inert_out(out or sys.stdout, json=getattr(args, "json", False))
    err = inert_out(err or sys.stderr)
    facts = admin.facts
    session_id = admin.sessions.find(cwd) or ""
    cmd = args.memory_cmd
    if cmd is None:
        args.usage_of.print_help(err)
        return EXIT_USAGE
    try:
        if cmd == "list":
            rows = facts.listing(args.scope, session_id, args.search, args.limit)
            if args.json:
                out.write(
                    json.dumps([p.to_json() for p in rows], ensure_ascii=False, indent=2) + "\n"
                )
            else:
                _table(rows, out)
            return EXIT_OK
        if cmd == "add":
            if args.scope == "session" and not session_id:
                err.write("milk-tui: no session in this folder yet; use --scope global\n")
                return EXIT_FAILED
            p = facts.remember(" ".join(args.content), consumer=args.consumer, scope=args.scope,
                               session_id=session_id if args.scope == "session" else "",
                               core=args.pin)  # fmt: skip
            if p is None:
                err.write("milk-tui: a fact cannot be empty\n")
                return EXIT_USAGE
            _show(p, args, out, "remembered")
            return EXIT_OK
        if cmd == "edit":
            content = _edit_content(args)
            if content is None and args.consumer is args.weight is args.scope is None:
                raise ValueError("nothing to change: give TEXT, --consumer, --weight or --scope")
            p = facts.edit(_pid(args.id), content=content, consumer=args.consumer,
                           weight=args.weight, scope=args.scope)  # fmt: skip
            _show(p, args, out, "updated")
            return EXIT_OK
        if cmd == "forget":
            pid = _forget_target(facts, args.id, err)
            if pid is None:
                return EXIT_FAILED
            if not facts.forget(pid):
                err.write(f"milk-tui: no fact #{pid}\n")
                return EXIT_FAILED
            out.write(json.dumps({"deleted": pid}) + "\n" if args.json else f"forgot #{pid}\n")
            return EXIT_OK
        if cmd == "pin":
            _show(
                facts.pin(_pid(args.id), not args.off),
                args,
                out,
                "unpinned" if args.off else "pinned",
            )
            return EXIT_OK
        if cmd == "undo":
            p = facts.undo(_pid(args.id) if args.id else None)
            if p is None:
                err.write("milk-tui: nothing to undo\n")
                return EXIT_FAILED
            _show(p, args, out, "restored")
            return EXIT_OK
    except KeyError as e:
        err.write(f"milk-tui: {e.args[0]}\n")
        return EXIT_FAILED
    except ValueError as e:
        err.write(f"milk-tui: {e}\n")
        return EXIT_USAGE
    err.write(f"milk-tui: unknown memory command {cmd}\n")
    return EXIT_USAGE


def run_import_go(
    args: argparse.Namespace, admin: Admin, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    from milk_tui.cli.import_progress import ImportProgress
    from milk_tui.facade.admin import GoImportError

    out = inert_out(out or sys.stdout, json=getattr(args, "json", False))
    raw_err = err or sys.stderr
    progress = ImportProgress(raw_err)  # before wrapping: its bar rewrites a line
    err = inert_out(raw_err)
    try:
        report = admin.import_go(Path(args.path), progress)
    except GoImportError as e:
        progress.close()
        err.write(f"milk-tui: {e}\n")
        return EXIT_FAILED
    finally:
        progress.close()
    if args.json:
        out.write(json.dumps(report.__dict__, indent=2) + "\n")
    else:
        for w in report.warnings:
            err.write(f"warning: {w}\n")
        out.write(report.summary() + "\n")
    return EXIT_OK
