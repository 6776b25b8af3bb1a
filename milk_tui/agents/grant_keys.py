"""What a stored grant means, and which grant "Always" stores for a call.

A grant is a string in the folder's grant file (``storage/permission_grants.py``):

* ``TOOL`` — the tool on paths inside the folder (for ``bash``: every command);
* ``TOOL:/abs/path`` — the tool on exactly that resolved path (how a path outside the
  folder is granted: only the paths the user said "Always" to);
* ``bash:WORDS`` — a shell command whose leading whole words are ``WORDS`` (``bash:git
  status`` allows ``git status -s``, not ``git push``); a command that chains, pipes,
  redirects, substitutes or runs in the background never matches one, nor one holding a
  character the shell may split words on differently (any control character or space
  but `` `` and tab), nor a ``git`` command with an option that runs a program or writes
  a file of its choosing (``RISKY_GIT``; ``find -exec``, ``tar -I``…: ``RISKY_OPTIONS``),
  nor one with an argument that leads outside the working folder (``leaves``: the prefix
  covers the program, never a path outside); a prefix naming a wrapper or interpreter
  (``WRAPPERS``: ``sudo``, ``awk``) covers nothing;
* ``bash=COMMAND`` — exactly that command (what "Always" stores for a command no prefix
  can cover safely: a chain, a wrapper like ``sudo`` or ``env``, an assignment).

A ``\\n``, ``\\r`` or ``%`` in a path or command is escaped as ``%0A``, ``%0D``, ``%25``, so
one grant is always one line.  docs/adr/0033-path-first-permissions.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from milk_tui.agents.shell_paths import glob_matches
from milk_tui.agents.tools.paths import ToolFailure, resolve, within

SHELL_TOOL = "bash"
"""The built-in shell tool's name (``agents/tools/specs.py``)."""

CHAIN_MARKS = (";", "&", "|", "`", "$(", ">", "<", "\n", "\r")
"""Anything that makes a command more than one simple command (``&&``/``||`` included)."""

MULTI_COMMAND = frozenset(
    "git npm npx yarn pnpm cargo pip pip3 uv docker podman kubectl helm go make gh "
    "poetry dotnet terraform brew apt systemctl".split()
)
"""Programs whose second word is the command that matters (``git status``, ``npm test``)."""

WRAPPERS = frozenset(
    "sudo doas su env nohup nice ionice timeout time watch xargs exec eval command "
    "builtin source . sh bash zsh dash fish ksh python python3 node perl ruby awk gawk "
    "mawk nawk sed busybox php lua tclsh expect".split()
)
"""Programs that run whatever follows them, or a program their script names (``awk
'BEGIN{system(…)}'``, ``sed '1e …'``): a prefix of one would grant every command."""

RISKY_OPTIONS = {
    "find": frozenset("-exec -execdir -ok -okdir -delete -fprint -fprint0 -fprintf -fls".split()),
    "tar": frozenset(
        "--to-command -I --use-compress-program --checkpoint-action --rsh-command -F "
        "--info-script --new-volume-script".split()
    ),
    "rsync": frozenset("-e --rsh --rsync-path".split()),
}
"""For programs a prefix grant may name, the options that run another program or delete
(``find -exec``, ``tar -I``, ``rsync -e``): a prefix grant never covers a command holding
one."""


RISKY_GIT = frozenset(
    "-c --config --config-env --exec-path --git-dir --work-tree -C -o --output "
    "--output-directory -O --open-files-in-pager --upload-pack --receive-pack --exec -x "
    "--extcmd --tool --template --separate-git-dir --ext-diff --filter foreach run".split()
)
"""Words after ``git WORD`` that make it run a program or write a file the command names
(git-config ``-c``, ``log --output``, ``grep -O``, ``fetch --upload-pack``, ``rebase -x``,
``difftool -x``, ``clone --template``, ``submodule foreach``, ``bisect run``…,
https://git-scm.com/docs): a prefix grant of a git command never covers them."""
RISKY_GIT_SHORT = frozenset("coOxC")
"""The short options of ``RISKY_GIT``, also when bundled (``-ofile``, ``-xc``): refused in
any single-dash word; ``-u`` too after ``clone`` and ``ls-remote`` (``--upload-pack``)."""


def escape(text: str) -> str:
    return text.replace("%", "%25").replace("\n", "%0A").replace("\r", "%0D")


def path_key(tool: str, resolved: str) -> str:
    return f"{tool}:{escape(resolved)}"


def is_simple(command: str) -> bool:
    """One simple command whose words Python's ``split`` finds as ``sh`` does: a no-break
    space or a vertical tab splits a word for ``str.split`` but not for the shell, which
    would let ``pytest\u00a0/../bin/sh`` pass a ``bash:pytest`` grant."""
    return not any(mark in command for mark in CHAIN_MARKS) and all(
        c == "\t" or c.isprintable() for c in command
    )


def _risky(words: list[str]) -> bool:
    """A git command with an option or word of ``RISKY_GIT`` after its subcommand, or a
    command with one of its program's ``RISKY_OPTIONS``."""
    if not words:
        return False
    if words[0] != "git":
        risky = RISKY_OPTIONS.get(words[0], frozenset())
        return any(
            w.split("=", 1)[0] in risky or (len(w) > 2 and w[:2] in risky) for w in words[1:]
        )
    short = RISKY_GIT_SHORT | ({"u"} if words[1:2] in (["clone"], ["ls-remote"]) else set())
    for w in words[2:]:
        name = w.split("=", 1)[0]
        if name in RISKY_GIT:
            return True
        if name.startswith("--") and len(name) > 2:
            # git takes any unambiguous start of a long option: --outp is --output
            if any(r.startswith(name) for r in RISKY_GIT if r.startswith("--")):
                return True
        elif w.startswith("-") and set(w[1:]) & short:
            return True
    return False


def command_prefix(command: str) -> str:
    """The leading words a prefix grant of ``command`` covers; "" when none is safe (a
    chain, a wrapper, an assignment, a multi-command program without its command)."""
    if not is_simple(command):
        return ""
    words = command.split()
    if not words or "=" in words[0] or words[0] in WRAPPERS or _risky(words):
        return ""
    if words[0] not in MULTI_COMMAND:
        return words[0]
    if len(words) < 2 or words[1].startswith("-"):
        return ""
    return " ".join(words[:2])


def shell_grant(command: str) -> str:
    """What "Always" stores for a shell command: its prefix, else the exact command."""
    prefix = command_prefix(command)
    return f"{SHELL_TOOL}:{prefix}" if prefix else f"{SHELL_TOOL}={escape(command.strip())}"


def leaves(root: Path, words: list[str]) -> bool:
    """Whether an argument may name a path outside the folder ``root`` (resolved): one that
    resolves there (``/``, ``~``, ``..``, a symlink inside), also as an option's value
    (``--out=/x``, ``-o/x``) or as what a glob matches now (``l*/x`` when ``link`` leads
    out), or one holding an expansion the shell makes (``$``)."""
    for w in words:
        if "$" in w or _DOT_GLOB.search(w):  # .* and ..* match .. in sh
            return True
        forms = [w]
        if w.startswith("-"):
            forms = [w.split("=", 1)[1]] if "=" in w else [w[2:]] if w[1:2] != "-" else []
        for form in forms:
            if any(not _inside(root, f) for f in glob_matches(root, form)):
                return True
    return False


_DOT_GLOB = re.compile(r"(^|/)\.[^/]*[*?\[]")


def _inside(root: Path, form: str) -> bool:
    try:
        target = str(resolve(root, form)) if form else str(root)
    except (ToolFailure, OSError, RuntimeError):
        return False
    return within(str(root), target)


def exact_grant(command: str) -> str:
    """The grant of exactly the shell command ``command`` (``bash=COMMAND``)."""
    return f"{SHELL_TOOL}={escape(command.strip())}"


def command_granted(command: str, granted: Iterable[str], root: Path | None = None) -> bool:
    """Whether a grant covers the shell command ``command``; with the working folder
    ``root``, a prefix grant covers it only while no argument leads outside (``leaves``)."""
    exact = exact_grant(command)
    words = command.split() if is_simple(command) else None
    if words is not None and (_risky(words) or (root is not None and leaves(root, words[1:]))):
        words = None
    for g in granted:
        if g == SHELL_TOOL or g == exact:
            return True
        if words is not None and g.startswith(SHELL_TOOL + ":"):
            prefix = g[len(SHELL_TOOL) + 1 :].split()
            # a stored prefix of a wrapper or interpreter (bash:awk) would cover any program
            if prefix and prefix[0] not in WRAPPERS and words[: len(prefix)] == prefix:
                return True
    return False
