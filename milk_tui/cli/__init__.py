"""Command line: the TUI by default, ``-p`` for one headless turn, and the admin subcommands."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal, TextIO

from milk_tui.cli.go_words import Parser
from milk_tui.cli.subcommands import ALL_FOLDERS_HELP
from milk_tui.cli.subcommands import config_option as _common
from milk_tui.cli.terminal_out import event_json, inert_out
from milk_tui.facade.errors import ConfigError, StorageError

if TYPE_CHECKING:
    from milk_tui.model import events as ev

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
"""128 + SIGINT, the shell convention for a run stopped by Ctrl+C."""


class _VersionAction(argparse.Action):
    """``--version``: the installed package's version, looked up only when asked (start-up
    never pays for reading the package metadata)."""

    def __init__(self, option_strings: list[str], dest: str, **kw: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help=str(kw.get("help", "")))

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            line = f"milk-tui {version('milk-tui')}"
        except PackageNotFoundError:
            line = "milk-tui (version unknown: the package is not installed)"
        print(line)
        parser.exit()


HELP_WORDS = frozenset({"-h", "--help"})


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line's parser.  ``argv``: the words about to be parsed; when none
    of them is a subcommand or asks for help, the subcommands are there by name only (so a
    word that is none of them is refused as before) and their modules are not loaded:
    building every subcommand's arguments costs a TUI start ~13 ms."""
    p: argparse.ArgumentParser = Parser(
        prog="milk-tui",
        description="Work with a cheap primary agent and a stronger escalation agent as one.",
        go_words=True,
    )
    _common(p)
    p.add_argument("-V", "--version", action=_VersionAction, help="print the version and exit")
    p.add_argument("--new", action="store_true", help="start a new session instead of resuming")
    p.add_argument(  # Go milk's flag: resuming is what happens anyway
        "-c",
        "--continue",
        action="store_true",
        help="resume this folder's latest session (the default)",
    )
    p.add_argument(
        "--session", metavar="NAME", default="", help="resume or create the named session"
    )
    p.add_argument("--any-folder", action="store_true", help=ALL_FOLDERS_HELP)
    p.add_argument("--demo", action="store_true", help="run on the built-in demo agents")
    p.add_argument("--agent", metavar="NAME", default="", help="the primary agent for this run")
    p.add_argument(
        "--escalation-agent", metavar="NAME", default="", help="the escalation agent for this run"
    )
    p.add_argument(
        "--debug",
        action="store_true",
        help="log raw wire traffic (secrets redacted) to the data dir",
    )
    p.add_argument(
        "-p",
        "--print",
        dest="prompt",
        metavar="PROMPT",
        help="run one turn headless and print the answer; '-' reads the prompt from stdin "
        "(for long prompts: milk-tui -p - < prompt.txt)",
    )
    route = p.add_mutually_exclusive_group()
    route.add_argument(
        "--escalate", action="store_true", help="with -p: send the prompt to the escalation agent"
    )
    route.add_argument(
        "--primary", action="store_true", help="with -p: send the prompt to the primary agent"
    )
    p.add_argument(
        "--attach",
        action="append",
        metavar="FILE",
        default=[],
        help="with -p: send FILE with the prompt (an image or a text file; repeatable)",
    )
    p.add_argument("--output-format", choices=("text", "stream-json"), default="text")
    p.add_argument(
        "--allow-tools",
        action="store_true",
        help="with -p: allow every tool call of both agents (otherwise a tool that writes, "
        "runs or fetches, or a path outside the folder, needs a grant: see `permissions`)",
    )
    sub = p.add_subparsers(dest="command")
    from milk_tui.cli.subcommands import SUBCOMMANDS

    names = [n for command in SUBCOMMANDS for n in command.names]
    if argv is not None and not any(w in HELP_WORDS or w in names for w in argv):
        never = Parser(add_help=False)  # no word names a subcommand: never parsed with
        for name in names:
            sub.choices[name] = never
        return p
    for command in SUBCOMMANDS:
        command.add(sub)
    return p


# ----- print mode -------------------------------------------------------------------------


async def _print_turn(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from milk_tui.facade.application import start
    from milk_tui.facade.attachments import Attachments
    from milk_tui.model import events as ev

    staged = Attachments(os.getcwd())
    for path in args.attach:  # every file checked before anything starts or is sent
        try:
            staged.attach_now(path)
        except ValueError as e:
            print(f"milk-tui: --attach {e}", file=inert_out(err))
            return EXIT_USAGE
    app = start(
        config_path=args.config,
        new=args.new,
        session_name=args.session,
        any_folder=args.any_folder,
        demo=args.demo,
        debug=args.debug,
        permission_policy="allow" if args.allow_tools else "deny",
        agent=args.agent,
        escalation_agent=args.escalation_agent,
    )
    app.attachments = staged
    stream_json = args.output_format == "stream-json"
    from milk_tui.cli.server_cmd import ServerProgress
    from milk_tui.cli.stream_json import printed

    server_progress = ServerProgress(err)  # before wrapping: its countdown rewrites a line
    out, err = inert_out(out, json=stream_json), inert_out(err)
    for note in app.startup_notes:
        print(f"milk-tui: {note}", file=err)
    from milk_tui.facade.project_trust import ignored_line  # loads the agents: not before

    for f in app.project_trust.ignored():  # no one to ask: the folder's settings stay out
        print(f"milk-tui: {ignored_line(f)}", file=err)
    failures: list[ev.TurnFailed] = []
    last_char = ["\n"]
    routed: list[ev.RouteDecided] = []

    def on_event(event: ev.BusEvent) -> None:
        if type(event) is ev.RouteDecided:
            routed.append(event)
        match event:
            case _ if stream_json:
                if printed(event):
                    out.write(event_json(event) + "\n")
                    out.flush()
            case ev.TextDelta(text=text):
                out.write(text)
                out.flush()
                last_char[0] = text[-1:]
            case ev.EscalationStarted(agent_name=agent, reason=why):
                if last_char[0] != "\n":
                    out.write("\n\n")  # keep the primary's hand-off apart from the new answer
                    last_char[0] = "\n"
                if why and not _asked_for_escalation(routed):
                    # the paid agent was chosen by a rule, not by --escalate: say which rule
                    print(f"milk-tui: escalated to {agent}: {why}", file=err)
                    routed.clear()  # a fresh retry of the same turn is not a second line
            case (
                ev.ServerStarting()
                | ev.ServerCountdown()
                | ev.ServerReady()
                | ev.ServerFailed()
                | ev.ServerStopped()
            ):
                server_progress(event)
            case ev.ReplyTruncated():
                if last_char[0] != "\n":
                    out.write("\n")  # the cut reply's last line, then the notice below it
                    last_char[0] = "\n"
                print(f"milk-tui: {event.line()}", file=err)
            case ev.Notice(level=level, message=message) if level != "info":
                print(f"milk-tui: {message}", file=err)
            case ev.PermissionsDenied(agent_name=agent, denials=denials):
                calls = "; ".join(f"{d.tool_name} {d.summary}".strip() for d in denials)
                tools = " ".join(dict.fromkeys(d.tool_name for d in denials))
                print(
                    f"milk-tui: {agent} was refused: {calls} (allow with --allow-tools or "
                    f"`milk-tui permissions grant {tools}`)",
                    file=err,
                )
        if isinstance(event, ev.TurnFailed):
            failures.append(event)

    app.add_listener(on_event)
    app.start_sitting()
    await app.start_remote()  # on: a permission question goes to the phone instead of "no"
    await app.mcp.wait_settled()  # one headless turn: its MCP tools must be there when it starts
    force: Literal["escalate", "primary"] | None = (
        "escalate" if args.escalate else ("primary" if args.primary else None)
    )
    loop = asyncio.get_running_loop()
    try:
        with _sigint_cancels(loop, app.cancel):
            outcome = await app.run_turn(args.prompt, force=force)
        await app.consolidate()
    finally:
        await app.aclose()
    if not stream_json and outcome.ok and last_char[0] != "\n":
        out.write("\n")
    if outcome.ok:
        return EXIT_OK
    if outcome.cancelled:
        print("milk-tui: interrupted", file=err)
        return EXIT_INTERRUPTED
    reason = failures[-1].error if failures else outcome.error
    print(f"milk-tui: {reason}", file=err)
    return EXIT_FAILED


def _asked_for_escalation(routed: list[ev.RouteDecided]) -> bool:
    """The turn went to the escalation agent because the user said so (``--escalate``), or
    this turn's line was already printed (``routed`` cleared)."""
    return not routed or (routed[-1].rule == "explicit" and routed[-1].target == "escalation")


class _sigint_cancels:
    """SIGINT cancels the running turn (which records nothing) instead of killing the process."""

    def __init__(self, loop: asyncio.AbstractEventLoop, cancel: Callable[[], object]) -> None:
        self.loop, self.cancel = loop, cancel

    def __enter__(self) -> None:
        try:
            self.loop.add_signal_handler(signal.SIGINT, self.cancel)
        except (NotImplementedError, RuntimeError):
            pass

    def __exit__(self, *exc: object) -> None:
        try:
            self.loop.remove_signal_handler(signal.SIGINT)
        except (NotImplementedError, RuntimeError):
            pass


def _run_tui(args: argparse.Namespace) -> int:
    # Start-up allocates a great deal and frees almost nothing (Textual's modules, CSS, the
    # session): cyclic collections meanwhile are pure cost (~90 of them, 25 ms).  The app
    # turns the GC back on once its main screen is up (tui/app.py).
    gc.disable()
    with contextlib.suppress(Exception):  # a check not started here runs at the open
        from milk_tui.facade.early import check_database_soon

        check_database_soon(create=True)  # beside Textual's imports, on the other core
    try:
        from milk_tui.tui.launch import run_app
    except ImportError:
        gc.enable()
        print("milk-tui: the TUI is not available in this build; use -p PROMPT", file=sys.stderr)
        return EXIT_FAILED
    return run_app(args)


def _bad_text(args: argparse.Namespace, flags: dict[str, str]) -> str:
    """One line for an argument or ``MILK_*`` variable holding bytes that are not UTF-8
    (Python hands them over as lone surrogates, which no file, database or server takes)."""
    named = [
        (flags.get(k, k), w)
        for k, v in vars(args).items()
        for w in (v if isinstance(v, list) else [v])  # nargs="+" words (memory add/edit)
        if isinstance(w, str)
    ]
    named += [(k, v) for k, v in os.environ.items() if k.upper().startswith("MILK_")]
    for name, value in named:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raw = value.encode("utf-8", "surrogateescape")
            return f"{name} is not valid UTF-8 text: {raw!r}"
    return ""


def _read_stdin_prompt() -> str | None:
    """``-p -``: the whole of standard input as the prompt; None (after one line) when it is
    not UTF-8."""
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        print(f"milk-tui: -p -: standard input is not UTF-8 text (byte {e.start})", file=sys.stderr)
        return None


def main(argv: list[str] | None = None) -> int:
    parser = build_parser(sys.argv[1:] if argv is None else argv)
    # argparse's messages quote the command line (an unknown choice, a bad value): written
    # inert like every other line.
    with (
        contextlib.redirect_stdout(inert_out(sys.stdout)),
        contextlib.redirect_stderr(inert_out(sys.stderr)),
    ):
        args = parser.parse_args(argv)
    bad = _bad_text(args, {a.dest: "/".join(a.option_strings) for a in parser._actions})
    if bad:
        print(f"milk-tui: {bad}", file=sys.stderr)
        return EXIT_USAGE
    if args.config:
        os.environ["MILK_CONFIG"] = args.config
    if args.command or args.prompt is not None:
        from milk_tui.facade.early import check_database_soon

        check_database_soon()  # beside the command's imports; the open takes what it read
    try:
        from milk_tui.cli.subcommands import find

        command = find(args.command)
        if command is not None:
            return command.run(args)
        if args.prompt == "-":
            args.prompt = _read_stdin_prompt()
            if args.prompt is None:
                return EXIT_USAGE
        if args.prompt is not None:
            if not args.prompt.strip():
                print("milk-tui: -p needs a non-empty prompt", file=sys.stderr)
                return EXIT_USAGE
            return asyncio.run(_print_turn(args, sys.stdout, sys.stderr))
        if args.attach:
            print("milk-tui: --attach goes with -p (in the TUI: /attach PATH)", file=sys.stderr)
            return EXIT_USAGE
        if args.agent or args.escalation_agent:  # refused before the screen opens
            from milk_tui.facade.agents import check_agent_choice

            check_agent_choice(args.config, args.agent, args.escalation_agent)
        return _run_tui(args)
    except ConfigError as e:  # may quote a config value: written inert, like every line
        print(f"milk-tui: config error: {e}", file=inert_out(sys.stderr))
        return EXIT_USAGE
    except StorageError as e:
        print(f"milk-tui: storage error: {e}", file=inert_out(sys.stderr))
        return EXIT_FAILED
    except BrokenPipeError:
        # The reader went away (`milk-tui … | head`): not an error worth a traceback.  Point
        # stdout at /dev/null so the interpreter's final flush does not raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FAILED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
