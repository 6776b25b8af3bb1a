"""Open a file in the user's editor with the TUI suspended, then come back.

The editor is the first that exists of: the config's ``config_editors``, ``$VISUAL``,
``$EDITOR``, ``nano``, ``vim``, ``vi`` (an entry may carry arguments: ``"code --wait"``).
The app hands the terminal over with ``App.suspend()``
(https://textual.textualize.io/api/app/#textual.app.App.suspend) and runs the editor in
the foreground, as that API's own example does.  A headless app (the test driver) has no
terminal to hand over: the editor runs without the suspension, which keeps the command
itself — which editor, which file, what it answered — exercised under Pilot.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from textual.app import App, SuspendNotSupported

FALLBACK_EDITORS = ("nano", "vim", "vi")


def editor_candidates(configured: list[str]) -> list[str]:
    """Every editor to try, in order, without empty entries or repeats."""
    env = [os.environ.get("VISUAL", ""), os.environ.get("EDITOR", "")]
    out: list[str] = []
    for c in [*configured, *env, *FALLBACK_EDITORS]:
        c = c.strip()
        if c and c not in out:
            out.append(c)
    return out


def find_editor(configured: list[str]) -> list[str] | None:
    """The argv prefix of the first candidate whose program exists (None: none does)."""
    for c in editor_candidates(configured):
        try:
            argv = shlex.split(c)
        except ValueError:  # unbalanced quotes: not a command line
            continue
        if argv and shutil.which(argv[0]):
            return argv
    return None


def resolve_path(arg: str, cwd: str) -> Path:
    """``PATH`` or ``@PATH``: ``~`` expanded, a relative path taken from the session folder."""
    text = arg.strip()
    if text.startswith("@"):
        text = text[1:]
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]  # a pasted quoted path
    path = Path(text).expanduser()
    return path if path.is_absolute() else Path(cwd) / path


def _suspended(app: App[object]) -> AbstractContextManager[None]:
    return nullcontext() if app.is_headless else app.suspend()


def edit(app: App[object], path: Path, configured: list[str]) -> str:
    """Run the editor on ``path`` with the app suspended; "" on success, else one line."""
    argv = find_editor(configured)
    if argv is None:
        tried = ", ".join(editor_candidates(configured))
        return f"no editor found (tried {tried}); set $EDITOR or config_editors"
    try:
        with _suspended(app):
            code = subprocess.call([*argv, str(path)])
    except OSError as e:
        return f"cannot run {argv[0]}: {e.strerror or e}"
    except SuspendNotSupported:
        return "this terminal cannot be handed over to an editor"
    return f"{argv[0]} exited with status {code}" if code else ""
