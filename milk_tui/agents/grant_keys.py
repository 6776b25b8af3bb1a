"""What a stored grant means, and which grant "Always" stores for a call.

A grant is a string in the folder's grant file (``storage/permission_grants.py``):

* ``TOOL`` — the tool on paths inside the folder (for ``bash``: every command);
* ``TOOL:/abs/path`` — the tool on exactly that resolved path (how a path outside the
  folder is granted: only the paths the user said "Always" to);
* ``bash:WORDS`` — a shell command whose leading whole words are ``WORDS`` (``bash:git
  status`` allows ``git status -s``, not ``git push``); a command that chains, pipes,
  redirects, substitutes or runs in the background never matches one;
* ``bash=COMMAND`` — exactly that command (what "Always" stores for a command no prefix
  can cover safely: a chain, a wrapper like ``sudo`` or ``env``, an assignment).

A ``\\n``, ``\\r`` or ``%`` in a path or command is escaped as ``%0A``, ``%0D``, ``%25``, so
one grant is always one line.  docs/adr/0033-path-first-permissions.md.
"""

from __future__ import annotations

from collections.abc import Iterable

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
    "builtin source . sh bash zsh dash fish ksh python python3 node perl ruby".split()
)
"""Programs that run whatever follows them: a prefix of one would grant every command."""


def escape(text: str) -> str:
    return text.replace("%", "%25").replace("\n", "%0A").replace("\r", "%0D")


def path_key(tool: str, resolved: str) -> str:
    return f"{tool}:{escape(resolved)}"


def is_simple(command: str) -> bool:
    return not any(mark in command for mark in CHAIN_MARKS)


def command_prefix(command: str) -> str:
    """The leading words a prefix grant of ``command`` covers; "" when none is safe (a
    chain, a wrapper, an assignment, a multi-command program without its command)."""
    if not is_simple(command):
        return ""
    words = command.split()
    if not words or "=" in words[0] or words[0] in WRAPPERS:
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


def command_granted(command: str, granted: Iterable[str]) -> bool:
    """Whether a grant covers the shell command ``command``."""
    exact = f"{SHELL_TOOL}={escape(command.strip())}"
    words = command.split() if is_simple(command) else None
    for g in granted:
        if g == SHELL_TOOL or g == exact:
            return True
        if words is not None and g.startswith(SHELL_TOOL + ":"):
            prefix = g[len(SHELL_TOOL) + 1 :].split()
            if prefix and words[: len(prefix)] == prefix:
                return True
    return False
