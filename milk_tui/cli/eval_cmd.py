"""``milk-tui eval``: ``run`` the scenarios through the configured agents, ``judge`` a run's
answers, ``--list`` the scenarios (docs/interfaces.md, "Eval")."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from milk_tui.cli.terminal_out import inert_out

if TYPE_CHECKING:
    from milk_tui.eval.scenarios import Scenario

ConfigOption = Callable[[argparse.ArgumentParser], None]
EXIT_USAGE = 2


def add_eval_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], config_option: ConfigOption
) -> None:
    p = sub.add_parser("eval", help="measure the agents and the routing on scenarios")
    p.add_argument("--list", action="store_true", help="list the scenarios and their turns")
    p.add_argument("--scenarios", metavar="DIR", help="scenario folder or file (default: built-in)")
    _filters(p)
    config_option(p)
    actions = p.add_subparsers(dest="eval_command")

    run = actions.add_parser("run", help="run every scenario once per mode")
    # SUPPRESS: a --scenarios given before the word (eval --scenarios DIR run) is kept
    run.add_argument(
        "--scenarios",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="scenario folder or file (default: built-in)",
    )
    _filters(run)
    run.add_argument(
        "--modes",
        default="routed,primary,escalation",
        help="comma-separated: routed, primary, escalation, claude-code (default: the first three)",
    )
    run.add_argument(
        "--results",
        metavar="DIR",
        help="results folder (default: a new one under the data dir's eval/)",
    )
    run.add_argument(
        "--judge-agent", metavar="NAME", help="judge the answers with this agent after the run"
    )
    run.add_argument(
        "--jobs", type=int, default=1, metavar="N", help="scenarios run in parallel (default 1)"
    )
    run.add_argument(
        "--turn-timeout",
        type=float,
        default=600.0,
        metavar="S",
        help="a turn's time limit (default 600)",
    )
    config_option(run)

    judge = actions.add_parser("judge", help="score a run's answers against the rubrics")
    judge.add_argument("--results", metavar="DIR", help="results folder (default: the latest run)")
    judge.add_argument(
        "--judge-agent", metavar="NAME", help="the judge (default: the escalation agent)"
    )
    judge.add_argument(
        "--scenarios",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="where the rubrics are (default: the run's)",
    )
    config_option(judge)
    from milk_tui.cli.eval_report_cmd import add_report_parser

    add_report_parser(actions)


def _filters(p: argparse.ArgumentParser) -> None:
    # SUPPRESS on both parsers: given before or after the word ``run``, either is kept
    p.add_argument(
        "--category",
        metavar="NAME",
        default=argparse.SUPPRESS,
        help="only the scenarios of this category",
    )
    p.add_argument(
        "--multi-turn",
        action="store_true",
        default=argparse.SUPPRESS,
        help="only the scenarios of more than one turn",
    )


def run_eval(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    out, err = inert_out(out), inert_out(err)
    if args.list or not args.eval_command:
        if not args.list:
            print(
                "milk-tui eval: say run, judge, report or --list (milk-tui eval --help)", file=err
            )
            return EXIT_USAGE
        return _list(args, out, err)
    if args.eval_command == "run":
        code = _run(args, err)
        if code == 0:  # the premise table and the rest, as `eval report` prints them
            from milk_tui.eval.report import build_report
            from milk_tui.eval.report_text import text_report

            out.write(text_report(build_report(Path(args.results))))
        return code
    if args.eval_command == "judge":
        return _judge(args, args.results, err)
    if args.eval_command == "report":
        from milk_tui.cli.eval_report_cmd import run_report

        return run_report(args, out, err)
    return EXIT_USAGE


def _scenarios(
    given: str | None, err: TextIO, args: argparse.Namespace | None = None
) -> list[Scenario] | None:
    """The scenarios of ``given`` (default: the built-in suite), narrowed by ``args``'s
    ``--category`` and ``--multi-turn`` when given; None (said on ``err``) when none is
    left."""
    from milk_tui.eval.scenarios import load_scenarios

    found, problems = load_scenarios(Path(given).expanduser() if given else None)
    for line in problems:
        print(f"milk-tui eval: {line}", file=err)
    category = getattr(args, "category", "") or ""
    if category:
        found = [s for s in found if s.category == category]
    if getattr(args, "multi_turn", False):
        found = [s for s in found if len(s.turns) > 1]
    if not found:
        why = f" of category '{category}'" if category else ""
        why += " with more than one turn" if getattr(args, "multi_turn", False) else ""
        print(f"milk-tui eval: no scenario{why} to run", file=err)
        return None
    return found


def _list(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    found = _scenarios(args.scenarios, err, args)
    if found is None:
        return 1
    width = max(len(s.name) for s in found)
    for s in found:
        labels = ",".join(t.route or "-" for t in s.turns)
        turns = f"{len(s.turns)} turn{'s' if len(s.turns) != 1 else ''}"
        print(f"{s.name:<{width}}  {s.category or '-':<14} {turns:<8} route {labels}", file=out)
    total = sum(len(s.turns) for s in found)
    print(f"{len(found)} scenarios, {total} turns", file=out)
    return 0


def _run(args: argparse.Namespace, err: TextIO) -> int:
    from milk_tui.eval.progress import Progress
    from milk_tui.eval.results_dir import new_results_dir
    from milk_tui.eval.runner import ALL_MODES, Runner, RunOptions
    from milk_tui.eval.setup import run_info, user_config

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = [m for m in modes if m not in ALL_MODES]
    if unknown or not modes:
        print(f"milk-tui eval: --modes: unknown mode {', '.join(unknown) or '(none)'} "
              f"(known: {', '.join(ALL_MODES)})", file=err)  # fmt: skip
        return EXIT_USAGE
    if args.jobs < 1:
        print("milk-tui eval: --jobs: expected 1 or more", file=err)
        return EXIT_USAGE
    found = _scenarios(args.scenarios, err, args)
    if found is None:
        return 1
    config_path = user_config(args.config)
    scenarios_dir = str(Path(args.scenarios).expanduser().resolve()) if args.scenarios else ""
    try:
        info = run_info(time.time(), modes, scenarios_dir, config_path)
    except ValueError as e:
        print(f"milk-tui eval: {e}", file=err)
        return 1
    try:
        results = new_results_dir(args.results)
    except OSError as e:
        print(f"milk-tui eval: --results: {e.strerror or e}", file=err)
        return 1
    steps = sum(len(s.turns) for s in found) * len(modes)
    progress = Progress(err, steps)
    args.results = str(results)  # the report printed after the run reads it
    print(f"milk-tui eval: {len(found)} scenarios × {len(modes)} modes → {results}", file=err)
    opts = RunOptions(
        found, modes, results, config_path, args.jobs, args.turn_timeout, scenarios_dir, info
    )
    code = Runner(opts, progress).run()
    if code:
        print(f"milk-tui eval: stopped; the finished turns are in {results}", file=err)
        return code
    print(f"milk-tui eval: done → {results}", file=err)
    if args.judge_agent:
        return _judge(args, str(results), err)
    return 0


def _judge(args: argparse.Namespace, results_arg: str | None, err: TextIO) -> int:
    from milk_tui.eval.judge import judge_results
    from milk_tui.eval.records import read_run
    from milk_tui.eval.results_dir import find_results_dir
    from milk_tui.eval.setup import user_config
    from milk_tui.facade.ask import AskError

    try:
        folder = find_results_dir(results_arg)
        info = read_run(folder)
    except ValueError as e:
        print(f"milk-tui eval: {e}", file=err)
        return 1
    given = args.scenarios if args.eval_command == "judge" else None
    found = _scenarios(given or info.scenarios_dir or None, err)
    if found is None:
        return 1

    def shown(s: object) -> None:
        from milk_tui.eval.records import RubricScore

        assert isinstance(s, RubricScore)
        what = f"{s.score:.2f}" if s.score is not None else f"missing ({s.error})"
        print(
            f"eval judge: {s.scenario} · {s.mode} · turn {s.turn + 1} · {s.criterion}: {what}",
            file=err,
        )

    try:
        scores, problems = judge_results(
            folder,
            found,
            config_path=user_config(args.config),
            judge_agent=args.judge_agent or "",
            on_score=shown,
        )
    except AskError as e:
        print(f"milk-tui eval: --judge-agent: {e}", file=err)
        return 1
    except KeyboardInterrupt:
        print("milk-tui eval: judging stopped; the earlier scores are kept", file=err)
        return 130
    for line in problems:
        print(f"milk-tui eval: {line}", file=err)
    missing = sum(1 for s in scores if s.score is None)
    print(
        f"milk-tui eval: {len(scores)} scores ({missing} missing) → {folder / 'scores.jsonl'}",
        file=err,
    )
    return 0
