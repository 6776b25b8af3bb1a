"""The real TUI on a real pty: a reply, a fact and a session name holding escape sequences
and markup are shown inert, and none of them reaches the terminal as a control.

Every byte the app writes is fed to a terminal emulator (pyte): its title stays unset,
the inert forms are on the screen, and no OSC 52 (clipboard), OSC 0/2 (title) or the
payloads' own sequences are in the byte stream.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from milk_tui.testing.cli_run import run_milk as milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.testing.pty_run import PtyRun

MILK = Path(sys.executable).with_name("milk-tui")
REPLY_CHUNKS = [
    "Reply \x1b]5",
    "2;c;dHVpLWNsaXA=\x07 \x1b]2;TUI-",
    "TITLE\x07 \x1b[2J \x9b31m \x1bP+q\x1b\\ [@click=app.quit]Q[/] [bold red]R[/] done",
]
FACT = "fact \x1b]0;FACT-TITLE\x07 \x1b]52;c;ZmFjdA==\x07 [reverse]F[/]"
SESSION = "n\x1b]0;NAME-TITLE\x07m"
EXPECTED = (
    "␛]52;c;dHVpLWNsaXA=␇ ␛]2;TUI-TITLE␇ ␛[2J ⟨CSI⟩31m ␛P+q␛\\",  # the reply
    "[@click=app.quit]Q[/] [bold red]R[/] done",  # its markup, as text
    "fact ␛]0;FACT-TITLE␇",  # the facts pane
    "n␛]0;NAME-TITLE␇m",  # the header
)


def test_the_tui_shows_untrusted_text_inert(tmp_path: Path, milk_home: Path) -> None:
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=REPLY_CHUNKS)
        (milk_home / "config.toml").write_text(
            f'agent = "llama"\nescalation_agent = "big"\n'
            f'[[agents]]\nname = "llama"\nprovider = "local"\nurl = "{srv.url}"\n'
            f'[[agents]]\nname = "big"\nprovider = "local"\nurl = "{srv.url}"\n'
        )
        assert milk("memory", "add", FACT, "--scope", "global", cwd=tmp_path).returncode == 0
        env = {**os.environ, "MILK_HOME": str(milk_home), "TERM": "xterm-256color"}
        for k in ("NO_COLOR", "FORCE_COLOR", "TEXTUAL"):
            env.pop(k, None)
        app = PtyRun([str(MILK), "--session", SESSION], cwd=tmp_path, env=env)
        try:
            app.until(lambda s: "Current need" in s and "fact ␛]0;FACT" in s, "the panes")
            app.send(b"/primary hello there")
            app.until(lambda s: "hello there" in s, "the typed prompt")
            app.send(b"\r")
            # Facts pane and header repaint around the turn: wait for a frame showing all.
            app.until(lambda s: "done" in s and "ready" in s, "the reply")
            app.until(lambda _: all(p in app.flat() for p in EXPECTED), "every inert form")
            screen = app.flat()
            app.send(b"\x11")  # Ctrl+Q
            code = app.finish()
        finally:
            if app.proc.poll() is None:
                app.proc.kill()
    assert code == 0, app.text()
    raw = bytes(app.raw)
    for payload in (b"\x1b]52", b"\x1b]0;", b"\x1b]2;", b"\x1bP+q", "\x9b31m".encode()):
        assert payload not in raw
    assert b"TITLE\x07" not in raw and b"\x1b[2J \x1b" not in raw
    assert app.screen.title == "" or "TITLE" not in app.screen.title
    for part in EXPECTED:
        assert part in screen
