"""Tab completion of the prompt: commands, their sub-commands, agent/server/theme names and
``@path`` (files relative to the session folder).

Pure functions over the text left of the cursor; the prompt widget cycles through what they
return (``widgets/prompt_input.py``).  A path is completed inside the session folder only,
unless the user typed a way out himself (an absolute path, ``~`` or ``..``): a symlink in
the folder that points elsewhere is not followed by a Tab.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from milk_tui.tui.commands import ALIASES, COMMANDS, SUBCOMMANDS, looks_like_command

if TYPE_CHECKING:
    from milk_tui.tui.screens.main import MainScreen

MAX_PATHS = 500
"""Entries offered for one ``@path`` Tab: a huge folder still answers at once."""


def _none() -> list[str]:
    return []


@dataclass(frozen=True)
class Names:
    """Where the names come from (read at each Tab: an agent added meanwhile is offered)."""

    cwd: Path
    agents: Callable[[], list[str]] = _none
    servers: Callable[[], list[str]] = _none
    themes: Callable[[], list[str]] = _none


@dataclass(frozen=True)
class Completion:
    start: int
    """Where the word being completed starts in the text left of the cursor."""
    options: list[str] = field(default_factory=list)
    """Whole replacement words; one ending in a space or ``/`` is complete as it stands."""


def complete(before: str, names: Names, *, first_line: bool = True) -> Completion | None:
    """What Tab offers for the word ending at the cursor; None: nothing to complete here
    (a plain prompt: Tab moves the focus), an empty ``options``: nothing matches."""
    start = max(before.rfind(" "), before.rfind("\n")) + 1
    word = before[start:]
    if word.startswith("@"):
        return Completion(start, paths(word, names.cwd, prefix="@"))
    if not first_line or not before.startswith("/") or before.startswith("//"):
        return None
    head, sep, _ = before.partition(" ")
    if not sep:
        if "/" in head[1:]:
            return None  # /etc/hosts: a path, not a command
        lowered = head.lower()
        return Completion(0, [n + " " for n in _command_names() if n.startswith(lowered)])
    command = ALIASES.get(head.lower(), head.lower())
    done = before[len(head) + 1 : start].split()
    return _argument(command, done, word, start, names)


def _command_names() -> list[str]:
    return [c.name for c in COMMANDS] + list(ALIASES)


def _argument(command: str, done: list[str], word: str, start: int, names: Names) -> Completion:
    if command in ("/open", "/attach") or (command == "/export" and done):
        return Completion(start, paths(word, names.cwd))
    pool = _argument_words(command, [d.lower() for d in done], names)
    low = word.lower()
    return Completion(start, [w + " " for w in pool if w.lower().startswith(low)])


def _argument_words(command: str, done: list[str], names: Names) -> list[str]:
    words = SUBCOMMANDS.get(command, ())
    if not done:
        if command == "/theme":
            return sorted(names.themes())
        return list(words)
    verb = done[0]
    if command == "/mcp" and verb in words and verb != "list" and len(done) == 1:
        return names.servers()
    if command == "/agent" and verb in ("switch", "escalation", "remove") and len(done) == 1:
        return names.agents()
    if command == "/agent" and verb == "switch" and len(done) == 2:
        return ["as"]
    if command == "/agent" and verb == "switch" and done[2:] == ["as"]:
        return ["primary", "escalation"]
    if command == "/server" and verb in ("start", "stop") and len(done) == 1:
        return names.agents()
    return []


def paths(word: str, cwd: Path, *, prefix: str = "") -> list[str]:
    """Entries matching ``word`` (``prefix`` + a path typed so far); folders end in ``/``,
    files in a space.  Hidden entries only when the typed name starts with a dot."""
    typed = word[len(prefix) :]
    folder_typed, _, base = typed.rpartition("/")
    if "/" in typed:
        folder_typed += "/"
    explicit = typed.startswith(("/", "~")) or ".." in Path(folder_typed).parts
    folder = Path(os.path.expanduser(folder_typed)) if folder_typed else Path()
    if not folder.is_absolute():
        folder = cwd / folder
    try:
        root = cwd.resolve()
        inside = folder.resolve().is_relative_to(root)
        if not inside and not explicit:
            return []
        out: list[str] = []
        with os.scandir(folder) as entries:
            for entry in entries:
                name = entry.name
                if not name.startswith(base) or (name.startswith(".") and not base.startswith(".")):
                    continue
                is_dir = entry.is_dir()  # follows a symlink: a link to a folder is one
                out.append(f"{prefix}{folder_typed}{name}{'/' if is_dir else ' '}")
                if len(out) >= MAX_PATHS:
                    break
    except OSError:
        return []
    return sorted(out)


def common_prefix(words: list[str]) -> str:
    if not words:
        return ""
    return os.path.commonprefix(words)


def hint_rows(screen_rows: int) -> int:
    """Rows the command pop-up above the prompt may take: up to half the screen (the
    conversation keeps the rest), never fewer than three."""
    return max(3, screen_rows // 2 - 4)


def fit_lines(lines: list[str], rows: int) -> str:
    """``lines`` in ``rows`` rows, the last one saying how many more Tab cycles through."""
    if len(lines) <= rows:
        return "\n".join(lines)
    shown = lines[: rows - 1]
    return "\n".join([*shown, f"… {len(lines) - len(shown)} more — Tab cycles through them"])


def command_hint(text: str, rows: int, width: int) -> str | None:
    """The pop-up above the prompt while a command name is typed: each matching command's
    usage and help on one row of ``width`` cells, as many as ``rows`` hold; None when
    ``text`` is no command name."""
    if not looks_like_command(text):
        return None
    typed = text.strip().lower()
    lines = [_cut(f"{c.usage}  — {c.help}", width) for c in COMMANDS if c.name.startswith(typed)]
    return fit_lines(lines, rows) or "no such command — /help"


def _cut(line: str, width: int) -> str:
    return line if len(line) <= width else line[: max(1, width - 1)] + "…"


def screen_names(screen: MainScreen) -> Names:
    """What Tab offers beside the commands: the agents, MCP servers and themes known now,
    and the session folder for ``@path``."""
    a = screen.milk.application

    def agents() -> list[str]:
        return [r.name for r in a.agents.rows()] if a is not None else []

    def servers() -> list[str]:
        return [s.name for s in a.mcp.statuses()] if a is not None else []

    return Names(
        Path(a.cwd if a is not None else screen.view.session_view().cwd),
        agents=agents,
        servers=servers,
        themes=lambda: list(screen.app.available_themes),
    )
