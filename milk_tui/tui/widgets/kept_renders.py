"""Reply renders kept from one start to the next: a resumed session's first frame paints its
replies without loading the Markdown stack.

That frame renders the replies it shows with Rich's Markdown, and the stack behind it
(markdown-it, Rich's Markdown and Syntax, Pygments: ``markdown_later.py``) costs the start
~20 ms and ~2 MiB before the frame.  So the last renders of a run (``NOTED`` of them, made
by ``md_render.render_markdown``) are written to ``<data dir>/kept-renders.json`` when the
app leaves, and the next start reads them in the opening's thread (``tui/launch.py``):
``render_markdown`` takes the kept lines of the same text, width and palette instead of
rendering — the same segments and styles, so the frame looks the same
(tests/tui/test_kept_renders.py); the stack loads after it (``code_warmup.warm_markdown``).

Only ``run_app`` starts turn this on (``use``); tests and snapshots render every reply.
The file is a cache: one missing, damaged or written with another renderer (``_fingerprint``:
the Markdown modules' files) is ignored.  A render whose styles do not survive as text (a
hyperlink, control codes) is not kept.  It holds reply text, as the database beside it does,
and is private (0600).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections import OrderedDict
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from milk_tui.model.terminal_text import inert

if TYPE_CHECKING:
    from milk_tui.tui.widgets.palette import Palette

FILE_NAME = "kept-renders.json"
FORMAT = 1
NOTED = 24
"""Renders remembered for the next start: more than a screenful of replies."""
SAVED_LINES = 600
"""Lines written at most, the latest renders first: a few screens (~100 KB of file)."""
_RENDERER_MODULES = (
    "rich.markdown",
    "rich.syntax",
    "markdown_it",
    "pygments",
    "milk_tui.tui.widgets.md_render",
    "milk_tui.tui.widgets.markdown_later",
    "milk_tui.tui.widgets.palette",
)

_Key = tuple[str, int, str]
_on = False
_kept: dict[_Key, list[Strip]] = {}
_noted: OrderedDict[_Key, list[Strip]] = OrderedDict()
_lock = threading.Lock()
"""Renders are made on the event loop and in render threads."""


def use(path: Path) -> None:
    """Take kept renders from ``path`` (a missing or unusable file: none) and note this run's
    renders for ``save``.  Called once per start, off the event loop."""
    global _on
    _on = True
    # A cache: whatever is wrong with the file (a damaged line, a style Rich cannot parse),
    # nothing kept is used and the replies render as usual.
    with contextlib.suppress(Exception):
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") == FORMAT and data.get("renderer") == _fingerprint():
            for text, width, palette, lines in data["renders"]:
                _kept[(text, int(width), palette)] = [_strip(line) for line in lines]


def kept(text: str, width: int, palette: Palette) -> list[Strip] | None:
    """The kept render of ``text`` at ``width`` in ``palette``, once (None: render it)."""
    if not _kept:
        return None
    return _kept.pop((text, width, repr(palette)), None)


def note(text: str, width: int, palette: Palette, strips: list[Strip]) -> None:
    """A render just made (or taken): one of those ``save`` writes, the latest kept."""
    if not _on or len(strips) > SAVED_LINES:
        return
    key = (text, width, repr(palette))
    with _lock:
        _noted[key] = strips
        _noted.move_to_end(key)
        while len(_noted) > NOTED:
            _noted.popitem(last=False)


def save(path: Path) -> None:
    """Write the noted renders for the next start (nothing when ``use`` was not called);
    a file that cannot be written is left as it was."""
    if not _on:
        return
    from milk_tui.config.paths import write_private

    renders: list[list[Any]] = []
    budget = SAVED_LINES
    with _lock:
        noted = list(_noted.items())
    for (text, width, palette), strips in reversed(noted):  # the latest first
        lines = [_line(strip) for strip in strips]
        if len(lines) <= budget and all(line is not None for line in lines):
            renders.append([text, width, palette, lines])
            budget -= len(lines)
    data = {"format": FORMAT, "renderer": _fingerprint(), "renders": renders}
    with contextlib.suppress(OSError):
        write_private(path, json.dumps(data, ensure_ascii=False, separators=(",", ":")))


def _line(strip: Strip) -> list[Any] | None:
    """``[cell_length, [text, style], …]``; None for a line whose styles do not survive as
    text (a link, metadata, control codes)."""
    out: list[Any] = [strip.cell_length]
    for seg in strip:
        style = seg.style
        if seg.control or (style is not None and (style.link or style.meta)):
            return None
        out.append([seg.text, "" if style is None else str(style)])
    return out


def _strip(line: list[Any]) -> Strip:
    """A kept line as it was saved: its text made inert and its styles without links, as
    for any text that reaches the terminal from a file (the file could have been edited)."""
    parse = Style.parse  # cached by Rich: a style string is parsed once
    segments = []
    for text, style in line[1:]:
        st = parse(style) if style else None
        if st is not None and (st.link or st.meta):
            raise ValueError("a kept line with a link")
        segments.append(Segment(inert(str(text)), st))
    return Strip(segments, int(line[0]))


def _fingerprint() -> list[list[object]]:
    """The renderer's modules' files (size, change time), found without importing them: a
    kept render is used only with the code that made it."""
    out: list[list[object]] = []
    for name in _RENDERER_MODULES:
        spec = find_spec(name)
        origin = spec.origin if spec is not None else None
        st = os.stat(origin) if origin else None
        out.append([name, st.st_size if st else 0, st.st_mtime_ns if st else 0])
    return out


def forget() -> None:
    """Off, nothing kept or noted (tests)."""
    global _on
    _on = False
    _kept.clear()
    _noted.clear()
