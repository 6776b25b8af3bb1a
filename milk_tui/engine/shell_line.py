"""Whether a typed line is a shell command (``direct_bash``), and whether it may run at once.

A line is a command when the user says so (a leading ``!``) or when it reads like one: its
first word is a program on PATH (or an executable path in the session's folder), it is one
line of at most ``MAX_CHARS``, it does not end with ``?``, and, outside quotes, it has none
of the words prose is made of.  Many programs are English words (``find``, ``make``,
``sort``, ``time``); a longer line whose words after the first look like none of a
command's arguments (no option, path, glob, pipe, variable, quote or number) is prose too.
Getting it wrong one way sends a command to the agent (``!`` forces it); the other way
asks one key before anything runs, unless the first word is on the allow-list.

Only the user's typed line is ever looked at: never model output, never a file's text
(docs/adr/0042-direct-shell-and-colour-modes.md).
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass

MAX_CHARS = 150
"""Longer lines are prompts (the Go original's limit): a command that long is pasted, and
``!`` still runs it."""
PROSE_WORDS = frozenset(
    "the a an please why how what whats what's should could would can does do is are was "
    "were me my you your i i'm we us our this that these those it its it's about explain "
    "tell help thanks there their they them".split()
)
"""Words that make a line prose (outside quotes, any case).  ``which`` and ``who`` are left
out: they are programs people run."""
OPENERS = frozenset("hi hello hey ok okay yes no sure thanks so now then also".split())
"""First words that open a sentence even when a program of that name exists (``yes``)."""
PROSE_MIN_WORDS = 5
_ARG_LIKE = re.compile(r"""[-./=*|><$~'"`:@0-9\\&;(){}\[\]]""")
_QUOTED = re.compile(r""""[^"]*"|'[^']*'|`[^`]*`""")


@dataclass(frozen=True)
class ShellLine:
    command: str
    """What runs (the line without its ``!``)."""
    first_word: str
    explicit: bool
    """Typed with a leading ``!``: the user asked for a shell, no question."""

    def runs_at_once(self, allow: list[str]) -> bool:
        return self.explicit or self.first_word in allow


def shell_line(text: str, cwd: str, path: str | None = None) -> ShellLine | None:
    """The command ``text`` is, or None when it is a prompt.  ``path``: the PATH to look
    programs up in (None: the environment's)."""
    line = text.strip()
    if line.startswith("!"):
        command = line[1:].strip()
        if not command or "\n" in command:
            return None
        return ShellLine(command, command.split()[0], explicit=True)
    if not line or "\n" in line or len(line) > MAX_CHARS or line.endswith("?"):
        return None
    words = line.split()
    first = words[0]
    if first.lower() in OPENERS or not _is_program(first, cwd, path):
        return None
    unquoted = _QUOTED.sub(" ", line).lower().split()
    if any(w.strip(",.!;:") in PROSE_WORDS for w in unquoted[1:]):
        return None
    if len(words) >= PROSE_MIN_WORDS and not any(_ARG_LIKE.search(w) for w in words[1:]):
        return None
    return ShellLine(line, first, explicit=False)


def _is_program(word: str, cwd: str, path: str | None) -> bool:
    if "/" in word:
        full = os.path.join(cwd, os.path.expanduser(word))
        return os.path.isfile(full) and os.access(full, os.X_OK)
    return shutil.which(word, path=path) is not None
