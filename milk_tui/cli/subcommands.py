"""The admin subcommands: one row each, naming how its parser is added and how it runs.

A new subcommand is one ``_add_*``/``_run_*`` pair and one row in ``SUBCOMMANDS``; the
top-level parser and ``main`` read the table, so neither grows with the commands.  Each
function imports its module when called: a TUI start never loads a subcommand's code.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass

AddParser = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]
Run = Callable[[argparse.Namespace], int]


@dataclass(frozen=True)
class Subcommand:
    names: tuple[str, ...]
    """The words it answers to (``args.command``)."""
    add: AddParser
    run: Run


ALL_FOLDERS_HELP = "let a session name or id prefix match a session of another folder too"
"""``--any-folder``'s help, at the top level and in ``sessions``."""


def config_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--config",
        metavar="FILE",
        help="config file (TOML or JSON); default: MILK_CONFIG or the user config dir",
    )


def _add_sessions(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from milk_tui.cli.sessions_cmd import add_sessions_parser

    add_sessions_parser(sub, config_option, ALL_FOLDERS_HELP)


def _run_sessions(args: argparse.Namespace) -> int:
    from milk_tui.cli.sessions_cmd import run_sessions

    return run_sessions(args, sys.stdout)


def _add_memory(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from milk_tui.cli.memory_cmd import add_import_parser, add_memory_parser

    add_memory_parser(sub)
    add_import_parser(sub)


def _run_memory(args: argparse.Namespace) -> int:
    from milk_tui.cli.memory_cmd import run_import_go, run_memory
    from milk_tui.facade.admin import open_admin

    with open_admin() as admin:
        if args.command == "memory":
            return run_memory(args, admin, os.getcwd())
        return run_import_go(args, admin)


def _add_permissions(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from milk_tui.cli.permissions_cmd import add_permissions_parser

    add_permissions_parser(sub)


def _run_permissions(args: argparse.Namespace) -> int:
    from milk_tui.cli.permissions_cmd import run_permissions

    return run_permissions(args, os.getcwd(), sys.stdout, sys.stderr)


def _add_mcp(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from milk_tui.cli.mcp_cmd import add_mcp_parser

    add_mcp_parser(sub)


def _run_mcp(args: argparse.Namespace) -> int:
    from milk_tui.cli.mcp_cmd import run_mcp

    return run_mcp(args, sys.stdout, sys.stderr)


def _add_server(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from milk_tui.cli.server_cmd import add_server_parser

    add_server_parser(sub)


def _run_server(args: argparse.Namespace) -> int:
    from milk_tui.cli.server_cmd import run_server

    return run_server(args, sys.stdout, sys.stderr)


def _add_usage(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from milk_tui.cli.usage_cmd import add_usage_parser

    add_usage_parser(sub)


def _run_usage(args: argparse.Namespace) -> int:
    from milk_tui.cli.usage_cmd import run_usage

    return run_usage(args, sys.stdout, sys.stderr)


def _add_eval(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from milk_tui.cli.eval_cmd import add_eval_parser

    add_eval_parser(sub, config_option)


def _run_eval(args: argparse.Namespace) -> int:
    from milk_tui.cli.eval_cmd import run_eval

    return run_eval(args, sys.stdout, sys.stderr)


def _add_workflow(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from milk_tui.cli.workflow_cmd import add_workflow_parser

    add_workflow_parser(sub)


def _run_workflow(args: argparse.Namespace) -> int:
    from milk_tui.cli.workflow_cmd import run_workflow

    return run_workflow(args, sys.stdout, sys.stderr)


def _add_metrics(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from milk_tui.cli.metrics_cmd import add_metrics_parser

    add_metrics_parser(sub)


def _run_metrics(args: argparse.Namespace) -> int:
    from milk_tui.cli.metrics_cmd import run_metrics

    return run_metrics(args, sys.stdout, sys.stderr)


def _add_config(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from milk_tui.cli.config_cmd import add_config_parser

    add_config_parser(sub)


def _run_config(args: argparse.Namespace) -> int:
    from milk_tui.cli.config_cmd import run_config

    return run_config(args, sys.stdout, sys.stderr)


def _add_tasks(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from milk_tui.cli.tasks_cmd import add_tasks_parser

    add_tasks_parser(sub)


def _run_tasks(args: argparse.Namespace) -> int:
    from milk_tui.cli.tasks_cmd import run_tasks
    from milk_tui.facade.admin import open_admin

    with open_admin() as admin:
        return run_tasks(args, admin, os.getcwd(), sys.stdout, sys.stderr)


SUBCOMMANDS: tuple[Subcommand, ...] = (
    Subcommand(("sessions",), _add_sessions, _run_sessions),
    Subcommand(("memory", "import-go"), _add_memory, _run_memory),
    Subcommand(("permissions",), _add_permissions, _run_permissions),
    Subcommand(("mcp",), _add_mcp, _run_mcp),
    Subcommand(("server",), _add_server, _run_server),
    Subcommand(("usage",), _add_usage, _run_usage),
    Subcommand(("eval",), _add_eval, _run_eval),
    Subcommand(("workflow",), _add_workflow, _run_workflow),
    Subcommand(("metrics",), _add_metrics, _run_metrics),
    Subcommand(("config",), _add_config, _run_config),
    Subcommand(("tasks",), _add_tasks, _run_tasks),
)
"""In the order ``--help`` lists them."""


def find(command: str | None) -> Subcommand | None:
    return next((s for s in SUBCOMMANDS if command in s.names), None)
