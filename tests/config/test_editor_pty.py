"""The real TUI on a real pty hands the terminal to the editor and takes it back: the
editor (a script) asks on the terminal, reads the answer typed there, and the app repaints
after it exits (App.suspend(), not the headless path of the Pilot tests)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from milk_tui.testing.pty_run import PtyRun

MILK = Path(sys.executable).with_name("milk-tui")


def test_open_suspends_the_tui_for_the_editor_and_comes_back(
    tmp_path: Path, milk_home: Path
) -> None:
    marker = tmp_path / "marker"
    script = tmp_path / "ask-editor"
    script.write_text(
        f'#!/bin/sh\nprintf "EDITOR-ASKS> "\nread answer\necho "$1 $answer" > {marker}\n'
    )
    script.chmod(0o755)
    (tmp_path / "notes.md").write_text("hi\n")
    env = {**os.environ, "MILK_HOME": str(milk_home), "TERM": "xterm-256color"}
    env.update(EDITOR=str(script), VISUAL="")
    for k in ("NO_COLOR", "FORCE_COLOR", "TEXTUAL"):
        env.pop(k, None)
    app = PtyRun([str(MILK), "--demo"], cwd=tmp_path, env=env)
    try:
        app.until(lambda s: "Current need" in s, "the main screen")
        app.send(b"/open @notes.md")
        app.until(lambda s: "/open @notes.md" in s, "the typed command")
        app.send(b"\r")
        app.until(lambda s: "EDITOR-ASKS>" in s, "the editor on the terminal")
        app.send(b"yes\r")
        app.until(lambda s: "· edited notes.md" in s, "the app back")
        app.send(b"\x11")  # Ctrl+Q
        code = app.finish()
    finally:
        if app.proc.poll() is None:
            app.proc.kill()
    assert code == 0, app.text()
    assert marker.read_text() == f"{tmp_path / 'notes.md'} yes\n"
