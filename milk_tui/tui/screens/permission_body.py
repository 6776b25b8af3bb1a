"""What a permission question shows: the whole call, and what each "Always" answer grants.

The body never hides a line the call would act on: a shell command is shown line by line,
every line, with its line count in the heading; only runs of blank lines are folded, into a
marker that says how many (``⋯ 80 blank lines ⋯``), so a harmless first line followed by
80 newlines and ``rm -rf ~`` shows the ``rm`` line right under the marker.  The request
reaching here has been made inert already (``inert_copy``): C0/C1 controls and bidi
overrides are visible stand-ins; LF and TAB stay, laid out and never interpreted.

The grant texts name exactly what "Always" stores (``PermissionRequested.grant``,
``grant_all``, or the Claude CLI's ``always_rules``); the buttons and the notice after the
answer use the same words.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from rich.text import Text

from milk_tui.model.events import PermissionRequested

INPUT_PREVIEW_CHARS = 4000
"""Arguments shown as JSON up to this size; the rest is counted, never silently cut."""
PREVIEW_LINES = 60
"""Diff lines shown; the rest is counted (the modal must fit the screen)."""
BLANK_RUN = 2
"""This many blank lines in a row or more fold into one marker line."""


def command_lines(command: str) -> list[tuple[str, str]]:
    """``(kind, text)`` per displayed line: ``line`` for a line of the command, ``blank``
    for a folded run of blank (or whitespace-only) lines, whose text is the marker."""
    out: list[tuple[str, str]] = []
    lines = command.split("\n")
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and not lines[j].strip():
            j += 1
        run = j - i
        if run >= BLANK_RUN:
            out.append(("blank", f"⋯ {run} blank line{'s' if run != 1 else ''} ⋯"))
            i = j
        elif run:
            out.extend(("line", lines[k]) for k in range(i, j))
            i = j
        else:
            out.append(("line", lines[i]))
            i += 1
    return out


def _command(t: Text, command: str) -> None:
    total = len(command.split("\n"))
    if total > 1:
        t.append(f"command, {total} lines:\n", style="bold yellow")
    first = True
    for kind, text in command_lines(command):
        if kind == "blank":
            t.append(f"  {text}\n", style="bold yellow")
            continue
        t.append("$ " if first else "  ", style="dim")
        t.append(text + "\n", style="bold")
        first = False


def _diff(t: Text, preview: str) -> None:
    lines = preview.splitlines()
    for line in lines[:PREVIEW_LINES]:
        style = (
            "bold"
            if line.startswith(("---", "+++"))
            else "green"
            if line.startswith("+")
            else "red"
            if line.startswith("-")
            else "cyan"
            if line.startswith("@@")
            else "dim"
        )
        t.append(line + "\n", style=style)
    if len(lines) > PREVIEW_LINES:
        t.append(f"[+{len(lines) - PREVIEW_LINES} more lines]\n", style="dim")


def is_outside(path: str, cwd: str) -> bool:
    try:
        return not Path(path).is_relative_to(Path(cwd).resolve())
    except (OSError, RuntimeError, ValueError):
        return True


def _paths(t: Text, request: PermissionRequested, cwd: str) -> None:
    if request.resolved_paths:
        t.append("paths:\n", style="bold")
        for p in request.resolved_paths:
            outside = bool(cwd) and is_outside(p, cwd)
            t.append(f"  {p}", style="bold yellow" if outside else "")
            t.append("  (outside the working folder)\n" if outside else "\n", style="yellow")
    if request.outside_paths:
        t.append("outside the working folder: ", style="bold yellow")
        t.append(", ".join(request.outside_paths) + "\n")


def describe(request: PermissionRequested, cwd: str = "") -> Text:
    """What the call would do, styled for the modal (``cwd`` marks the outside paths)."""
    args = request.tool_input
    t = Text()
    command = args.get("command")
    url = args.get("url")
    if request.preview:
        _diff(t, request.preview)
    elif isinstance(command, str):
        _command(t, command)
    elif isinstance(url, str):
        t.append(f"{str(args.get('method') or 'GET').upper()} ", style="bold")
        t.append(url + "\n", style="underline")
    else:
        body = json.dumps(args, indent=2, ensure_ascii=False)
        if len(body) > INPUT_PREVIEW_CHARS:
            more = len(body) - INPUT_PREVIEW_CHARS
            body = body[:INPUT_PREVIEW_CHARS] + f"\n[+{more} more characters]"
        t.append(body + "\n", style="dim")
    _paths(t, request, cwd)
    t.append("Always stores: ", style="dim")
    t.append(grant_text(request), style="bold")
    if request.always_rules:
        t.append(" (in .claude/settings.local.json)", style="dim")
    return t


def _what(request: PermissionRequested, wide: bool) -> tuple[str, str]:
    """The grant in a few words, as ``(short, full)``: the button's and the notice's."""
    if wide:
        tool = request.grant_all
        what = f"every {_shell_word(tool)} command" if _is_shell(tool) else f"every {tool} call"
        return what, what
    if request.always_rules:
        rules = ", ".join(request.always_rules)
        return rules, f"the rule {rules}"
    keys = [k for k in (request.grant or request.tool_name).split("\n") if k]
    parts = [_one_grant(k) for k in keys] or [
        (request.tool_name, f"every {request.tool_name} call")
    ]
    return "; ".join(p[0] for p in parts), "; ".join(p[1] for p in parts)


def _one_grant(key: str) -> tuple[str, str]:
    """One grant key in words (the forms are in docs/interfaces.md, "Permissions"):
    ``TOOL``, ``TOOL:/abs/path`` (that path only), ``bash:WORDS`` (a command prefix) and
    ``bash=COMMAND`` (exactly that command)."""
    cut = min((i for i in (key.find(":"), key.find("=")) if i > 0), default=-1)
    if cut < 0:
        return key, f"every {key} call"
    tool, mark, rest = key[:cut], key[cut], _shown(key[cut + 1 :])
    if mark == "=":
        return f"exactly `{rest}`", f"only the command `{rest}`"
    if _is_shell(tool):
        return f"`{rest} …`", f"only commands starting with `{rest} …`"
    if rest.startswith("/"):
        return f"{tool} on {rest}", f"{tool} on {rest} only"
    return f"{tool} `{rest} …`", f"only {tool} calls starting with `{rest} …`"


LABEL_CHARS = 60
"""A grant longer than this is cut on its button (the body shows the whole call)."""


def _shown(escaped: str) -> str:
    """A grant's command or path as a person reads it: the escaped line breaks
    (``%0A``, ``%0D``) as ⏎ and ␍, a run of three or more counted, at most ``LABEL_CHARS``."""
    text = escaped.replace("%0A", "⏎").replace("%0D", "␍").replace("%25", "%")
    text = re.sub(r"⏎{3,}", lambda m: f"⏎×{len(m.group())}", text)
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def grant_text(request: PermissionRequested, *, wide: bool = False) -> str:
    """What "Always" (``wide``: the wider choice) allows from now on, in plain words."""
    return _what(request, wide)[1]


def always_label(request: PermissionRequested, *, wide: bool = False) -> str:
    """The "Always" button's text: the grant it stores, then its key (the wide choice has
    none: it is only ever chosen on purpose)."""
    return f"Always: {_what(request, wide)[0]} in this folder" + ("" if wide else " (a)")


def answered_text(request: PermissionRequested, allow: bool, always: bool, wide: bool) -> str:
    """The conversation's notice after the answer, naming exactly what was granted."""
    if not allow:
        return f"{request.tool_name}: denied"
    if not always:
        return f"{request.tool_name}: allowed once"
    return f"{request.tool_name}: allowed for this folder — {grant_text(request, wide=wide)}"


def _is_shell(tool: str) -> bool:
    return tool.lower() in {"bash", "shell", "sh"}


def _shell_word(tool: str) -> str:
    return "shell" if _is_shell(tool) else tool
