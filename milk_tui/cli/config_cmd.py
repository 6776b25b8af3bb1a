"""``milk-tui config [path|show|init|open]``: the config file on the command line.

``path`` prints the file in use (nothing and exit 1 when running on defaults), ``show`` the
config in use as JSON with every secret masked, ``init`` writes the commented starter
(never over an existing file), ``open`` runs ``config_editors``/``$VISUAL``/``$EDITOR``
on it.  The same rules as ``/config`` in the TUI (tui/slash/config.py, config/paths.py).
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path
from typing import TextIO

from milk_tui.cli.terminal_out import inert_out

EXIT_OK, EXIT_FAILED = 0, 1


def add_config_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("config", help="the config file: path, show, init, open")
    p.add_argument("action", nargs="?", default="path", choices=("path", "show", "init", "open"),
                   help="path (default): the file in use; show: the config, secrets masked; "
                        "init: write a starter; open: edit it")  # fmt: skip
    p.add_argument("--config", metavar="FILE", help="this file instead of the usual search")


def _in_use(args: argparse.Namespace) -> Path | None:
    from milk_tui.config.paths import resolve_config_file

    if args.config:
        return Path(args.config).expanduser()
    found, _ = resolve_config_file()
    return found


def run_config(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    out, err = inert_out(out, json=args.action == "show"), inert_out(err)
    used = _in_use(args)
    if args.action == "path":
        if used is None:
            err.write("milk-tui: no config file: running on defaults (milk-tui config init)\n")
            return EXIT_FAILED
        out.write(f"{used}\n")
        return EXIT_OK
    if args.action == "show":
        from milk_tui.facade.config_view import shown_config

        data, warnings, _ = shown_config(used)
        for w in warnings:
            err.write(f"milk-tui: ⚠ {w}\n")
        out.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        return EXIT_OK
    if args.action == "init":
        return _init(out, err)
    return _open(used, err)


def _init(out: TextIO, err: TextIO) -> int:
    from milk_tui.config.paths import config_dir
    from milk_tui.config.starter import write_starter

    try:
        path, written = write_starter(config_dir())
    except OSError as e:
        err.write(f"milk-tui: cannot write the starter config: {e.strerror or e}\n")
        return EXIT_FAILED
    if not written:
        err.write(f"milk-tui: {path} exists: left as it is (milk-tui config open edits it)\n")
        return EXIT_FAILED
    out.write(f"wrote a commented starter config: {path}\n")
    return EXIT_OK


def _open(used: Path | None, err: TextIO) -> int:
    from milk_tui.config.load import load_config
    from milk_tui.tui.editor import find_editor

    if used is None:
        err.write("milk-tui: no config file in use: milk-tui config init writes a starter\n")
        return EXIT_FAILED
    cfg, _, _ = load_config(used, skip_broken_file=True)
    argv = find_editor(list(cfg.config_editors))
    if argv is None:
        err.write("milk-tui: no editor found: set $VISUAL or $EDITOR (or config_editors)\n")
        return EXIT_FAILED
    try:
        rc = subprocess.run([*argv, str(used)], check=False).returncode
    except OSError as e:
        err.write(f"milk-tui: cannot run {argv[0]}: {e.strerror or e}\n")
        return EXIT_FAILED
    if rc != 0:
        err.write(f"milk-tui: {argv[0]} exited with {rc}\n")
    return EXIT_OK if rc == 0 else EXIT_FAILED
