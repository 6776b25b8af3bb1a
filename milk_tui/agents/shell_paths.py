"""The paths a shell command names outside the working folder, so that the permission
check can ask about them like any tool's path argument, whatever switch or grant would
allow the command itself (docs/adr/0033-path-first-permissions.md).

This reads the words of every command of a chain (``a && b | c``), and an option's value
(``--out=/x``, ``-o/x``), as the shell would split them (``shlex``); a word is a path when
it could name one outside: absolute, ``~``/``$HOME``, or holding ``..``, or leading out
through a symlink or a glob.  The program word of each command is not read (running
``/usr/bin/env`` names no data), nor are the terminal devices ``>/dev/null`` writes to.
What a program does by itself (``cd ..`` then a relative path, a script's own paths) is
not seen: a prefix grant never covers a chain for that reason (``grant_keys.is_simple``).
"""

from __future__ import annotations

import glob
import itertools
import os
import re
import shlex
from pathlib import Path

from milk_tui.agents.tools.paths import CallPath, ToolFailure, is_inside, resolve

HARMLESS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty"})
"""Device files a command reads or writes without touching anyone's data."""

GLOB_LIMIT = 1000
_DOT_GLOB = re.compile(r"(^|/)\.[^/]*[*?\[]")

_OPERATORS = frozenset({";", "&", "&&", "|", "||", "(", ")", ";;", "|&", "\n"})


def outside_words(root: Path, command: str) -> tuple[CallPath, ...]:
    """Each word of ``command`` that names a path outside ``root`` (resolved), once."""
    seen: dict[str, CallPath] = {}
    for word in _arguments(command):
        for form in _forms(word):
            p = _outside(root, form)
            if p is not None:
                seen.setdefault(word, CallPath(word, p, False))
                break
    return tuple(seen.values())


def _arguments(command: str) -> list[str]:
    """The words after each command's program word (redirection targets included)."""
    try:
        lexer = shlex.shlex(command.replace("\n", " ; "), posix=True, punctuation_chars=";&|()<>")
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:  # an unbalanced quote: the shell refuses it too; read it plainly
        tokens = command.split()
    out: list[str] = []
    at_program, redirect = True, False
    for t in tokens:
        if t in _OPERATORS:
            at_program = True
        elif any(c in t for c in "<>") and set(t) <= set("<>&|"):
            redirect = True  # its target is the next word, wherever it stands
        elif redirect:
            out.append(t)
            redirect = False
        elif at_program and "=" in t and not t.startswith(("/", "~", ".")):
            continue  # an assignment before the program (FOO=1 cmd)
        elif at_program:
            at_program = False
        else:
            out.append(t)
    return out


def _forms(word: str) -> list[str]:
    """The word and, for an option, its value; ``$HOME`` read as ``~``."""
    forms = [word]
    if word.startswith("-"):
        forms = [word.split("=", 1)[1]] if "=" in word else [word[2:]] if word[1:2] != "-" else []
    out = []
    for f in forms:
        for home in ("${HOME}", "$HOME"):
            if f.startswith(home):
                f = "~" + f[len(home) :]
        out.append(f)
    return out


def _outside(root: Path, form: str) -> str | None:
    """The resolved path when ``form`` could name one outside ``root``, else None."""
    if not form or not (form.startswith(("/", "~", ".")) or "/" in form or "*" in form):
        return None
    if form in HARMLESS:
        return None
    for each in glob_matches(root, form):
        try:
            target = resolve(root, each)
        except (ToolFailure, OSError, RuntimeError):
            return form
        if not is_inside(root, target):
            return str(target)
    return None


def glob_matches(root: Path, form: str) -> list[str]:
    """``form`` and, for a glob, what it matches now from ``root`` (``l*/x`` through a
    symlink leading out; ``..*`` matches ``..``); past ``GLOB_LIMIT`` matches the glob's
    fixed start stands for them."""
    if not any(c in form for c in "*?["):
        return [form]
    base = os.path.expanduser(form) if form.startswith("~") else form
    found = list(itertools.islice(glob.iglob(base, root_dir=root), GLOB_LIMIT + 1))
    if (dot := _DOT_GLOB.search(form)) is not None:  # sh's .* matches .. (glob's does not)
        found.append(form[: dot.start() + len(dot.group(1))] + "..")
    return [form, *found] if len(found) <= GLOB_LIMIT else [form, "/"]
