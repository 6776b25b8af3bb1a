"""One payload of every terminal control, for the tests that walk every surface (the CLI's
commands, the TUI's screens) and check none of it reaches a terminal raw.

``PAYLOAD`` holds every C0 control but LF (a line break is what a plain line needs, and no
terminal takes it as a command; TAB likewise stays as it is), DEL, every C1 control,
OSC window titles (0 and 2) and an OSC 52 clipboard write, DCS, APC, PM and SOS strings,
CSI clear-screen and colour, the bidi embeddings, overrides and isolates, and markup that
Rich/Textual would style.  NUL cannot travel in an argument, an environment variable or a
file name, so ``payload_for`` leaves it (and ``/`` for file names) out where needed.
"""

from __future__ import annotations

import re

C0 = "".join(chr(c) for c in range(0x00, 0x20) if c != 0x0A)
C1 = "".join(chr(c) for c in range(0x80, 0xA0))
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
TITLE_MARK = "pwned"
"""What the payload would set the window title to; a title holding it is a failure."""
CLIPBOARD_B64 = "cHduZWQ="
"""``pwned``, base64: what the payload's OSC 52 would put on the clipboard."""

SEQUENCES = (
    f"\x1b]0;{TITLE_MARK}\x07",  # OSC 0: icon name and window title
    f"\x1b]2;{TITLE_MARK}2\x1b\\",  # OSC 2: window title, ST-terminated
    f"\x1b]52;c;{CLIPBOARD_B64}\x07",  # OSC 52: clipboard write
    "\x1bP1$qm\x1b\\",  # DCS (DECRQSS)
    "\x1b_apc\x1b\\",  # APC
    "\x1b^pm\x1b\\",  # PM
    "\x1bXsos\x1b\\",  # SOS
    "\x1b[2J",  # CSI: clear the screen
    "\x1b[31m",  # CSI: red
    "\x9d0;c1-title\x9c",  # OSC in its 8-bit C1 form
)
PAYLOAD = "evil" + "".join(SEQUENCES) + C0 + "\x7f" + C1 + BIDI + "[bold]x[/bold]end"
"""Every control the sanitiser must make inert, in one string ("evil" first, "end" last:
a test finds the inert form between them)."""

_RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""What must never reach a terminal from outside text: every C0 control but TAB and LF,
DEL, C1, bidi controls (the characters ``milk_tui.model.terminal_text.inert`` replaces)."""


def payload_for(where: str) -> str:
    """``PAYLOAD`` as it can travel ``where``: ``argv`` or ``env`` (no NUL), ``filename``
    (no NUL, no ``/``), anything else whole."""
    if where in ("argv", "env"):
        return PAYLOAD.replace("\x00", "")
    if where == "filename":
        return PAYLOAD.replace("\x00", "").replace("/", "")
    return PAYLOAD


def raw_controls(output: bytes | str) -> list[str]:
    """The raw controls in a program's output (decoded as UTF-8), each with a little
    context, for an assertion message; empty when there are none."""
    text = output.decode("utf-8", "replace") if isinstance(output, bytes) else output
    return [repr(text[max(0, m.start() - 20) : m.end() + 20]) for m in _RAW.finditer(text)]


PAYLOAD_ESCAPES = (
    b"\x1b]0;" + TITLE_MARK.encode(),
    b"\x1b]2;" + TITLE_MARK.encode(),
    b"\x1b]52",
    b"\x1bP1$q",
    b"\x1b_apc",
    b"\x1b^pm",
    b"\x1bXsos",
    "\x9d0;c1".encode(),
    *(c.encode() for c in BIDI),
)
"""The payload's own sequences as bytes: a screen dump (``tmux capture-pane -e``) holds the
TUI's own colours, so it is checked for these rather than for every ESC."""
