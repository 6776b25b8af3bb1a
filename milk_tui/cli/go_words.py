"""Go milk command-line words milk-tui does not have, each answered with what to use instead.

A user of the Go original types ``milk --list`` or ``milk config`` by habit; argparse would
answer with its usage and "invalid choice".  When the command line does not parse, the
first such word found gets one line instead.  A command line that parses never looks here
(``-p config`` is a prompt).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

GO_WORDS: dict[str, str] = {
    "--list": "milk-tui sessions list [--all] lists the sessions",
    "--drop": "--new starts a new session; /sessions (F7) in the TUI deletes one",
    "otel": "set otel.endpoint in the config to export traces; /otel in the TUI shows the export "
            "and milk-tui metrics the local figures",
    "update": "milk-tui is updated by the tool that installed it (pipx upgrade milk-tui, "
              "uv tool upgrade milk-tui)",
}  # fmt: skip
"""Go milk's word → what to use here."""


def go_hint(argv: list[str], commands: set[str]) -> str:
    """The one line for a command line that did not parse, or "" when nothing fits.

    ``commands`` are milk-tui's subcommands: a first word that is none of them and no Go
    word is Go milk's positional prompt (``milk "fix the test"``)."""
    first = argv[0] if argv else ""
    flags = [w for w in argv if w.startswith("--")]  # a subcommand is only ever the first word
    for word in [*flags, first]:
        if word in GO_WORDS:
            return f"{word}: not in milk-tui — {GO_WORDS[word]}"
    if first and not first.startswith("-") and first not in commands:
        return f"'{first}' is not a command — one prompt runs with -p: milk-tui -p PROMPT"
    return ""


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` that, as the top-level parser (``go_words=True``), answers a
    command line that does not parse with the Go milk word's line when there is one."""

    def __init__(self, *args: Any, go_words: bool = False, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.go_words = go_words
        self.argv: list[str] = []

    def parse_known_args(  # type: ignore[override]  # typeshed overloads on namespace
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self.argv = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(self.argv, namespace)

    def parse_args(  # type: ignore[override]  # typeshed overloads on namespace
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> argparse.Namespace:
        """As argparse's, except that words left over after a subcommand are refused with
        that subcommand's usage (``milk-tui memory edit 1 a b``), not the top level's."""
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            _chosen(self, parsed).error(f"unrecognized arguments: {' '.join(extra)}")
        return parsed

    def error(self, message: str) -> NoReturn:
        if self.go_words:
            sub = self._subparsers._group_actions[0] if self._subparsers else None
            hint = go_hint(self.argv, set(getattr(sub, "choices", None) or ()))
            if hint:
                self.exit(2, f"milk-tui: {hint}\n")
        super().error(message)


def _chosen(parser: argparse.ArgumentParser, ns: argparse.Namespace) -> argparse.ArgumentParser:
    """The deepest (sub)parser the parsed command line went through."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and action.dest:
            sub = action.choices.get(getattr(ns, action.dest, None) or "")
            if sub is not None:
                return _chosen(sub, ns)
    return parser
