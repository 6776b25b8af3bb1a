"""Reply renders kept from one start to the next (tui/widgets/kept_renders.py): a kept render
is segment for segment, style for style, what rendering the same text gives; a resumed
session's first frame paints its replies from them without loading the Markdown stack, and
shows the same lines."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.strip import Strip

from milk_tui.tui.widgets import kept_renders
from milk_tui.tui.widgets.md_render import markdown_lines, render_markdown
from milk_tui.tui.widgets.palette import Palette

CORPUS = (
    "Here is the **answer**, with *emphasis*, ~~struck~~ and `code`.\n\nA second paragraph.",
    "# Heading\n\n## Sub\n\n### Third\n\ntext under it",
    "- first point with `code`\n- second point\n  - nested\n\n1. one\n2. two",
    "> a quote\n> over two lines\n\n---\n\nafter the rule",
    "| a | b |\n|---|---|\n| 1 | wide ✓ 漢字 |\n| 2 | x |",
    "```python\ndef f(x):\n    return x + 1\n```\n",
    "    indented code\n    block\n\nand [a link](https://example.com) in balanced mode",
    "A long line that wraps " * 12,
)
PALETTES = (Palette(), Palette(dark=False, foreground="#202020", code_bg="#f0f0f0"))


@pytest.fixture
def kept() -> Iterator[None]:
    kept_renders.forget()
    render_markdown.cache_clear()
    yield
    kept_renders.forget()
    render_markdown.cache_clear()


def _segments(strips: list[Strip]) -> list[list[tuple[str, object]]]:
    return [[(seg.text, seg.style) for seg in strip] for strip in strips]


def test_a_kept_render_is_the_render_itself(tmp_path: Path, kept: None) -> None:
    path = tmp_path / kept_renders.FILE_NAME
    kept_renders.use(path)  # none there yet
    made = {  # within what is kept: NOTED renders, SAVED_LINES lines
        (text, width, palette): render_markdown(text, width, palette)
        for text in CORPUS
        for width, palette in zip((40, 77), PALETTES, strict=True)
    }
    kept_renders.save(path)
    kept_renders.forget()
    render_markdown.cache_clear()
    kept_renders.use(path)
    for (text, width, palette), strips in made.items():
        again = kept_renders.kept(text, width, palette)
        assert again is not None, (text, width)
        assert _segments(again) == _segments(strips)
        assert [s.cell_length for s in again] == [s.cell_length for s in strips]
    assert kept_renders.kept(CORPUS[0], 41, PALETTES[0]) is None  # another width: rendered
    assert kept_renders.kept(CORPUS[0], 77, PALETTES[0]) is None  # another palette


def test_a_render_with_a_hyperlink_is_not_kept(tmp_path: Path, kept: None) -> None:
    path = tmp_path / kept_renders.FILE_NAME
    kept_renders.use(path)
    full = Palette(colorization="full")  # links as terminal hyperlinks
    render_markdown("see [this](https://example.com)", 60, full)
    render_markdown("plain words", 60, full)
    kept_renders.save(path)
    kept_renders.forget()
    kept_renders.use(path)
    assert kept_renders.kept("see [this](https://example.com)", 60, full) is None
    assert kept_renders.kept("plain words", 60, full) is not None


def test_a_file_from_another_renderer_or_damaged_is_ignored(tmp_path: Path, kept: None) -> None:
    path = tmp_path / kept_renders.FILE_NAME
    kept_renders.use(path)
    render_markdown(CORPUS[0], 60, PALETTES[0])
    kept_renders.save(path)
    text = path.read_text()
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    for broken in (text.replace('"rich.markdown",', '"rich.markdown",1'), text[: len(text) // 2]):
        path.write_text(broken)
        kept_renders.forget()
        kept_renders.use(path)
        assert kept_renders.kept(CORPUS[0], 60, PALETTES[0]) is None


def test_an_edited_file_reaches_the_screen_as_inert_text_or_not_at_all(
    tmp_path: Path, kept: None
) -> None:
    """The file could have been edited: its text is made inert, a link or a style Rich
    cannot read drops what was kept (the reply renders as usual), never an exception."""
    import json

    path = tmp_path / kept_renders.FILE_NAME
    kept_renders.use(path)
    render_markdown(CORPUS[0], 60, PALETTES[0])
    kept_renders.save(path)
    data = json.loads(path.read_text())
    line = data["renders"][0][3][0]
    line[1][0] = "\x1b]52;c;aGk=\x07" + line[1][0]
    path.write_text(json.dumps(data))
    kept_renders.forget()
    kept_renders.use(path)
    strips = kept_renders.kept(CORPUS[0], 60, PALETTES[0])
    assert strips is not None
    assert "\x1b" not in "".join(seg.text for strip in strips for seg in strip)
    for style in ("link https://evil.example", "bold nonsense-colour-)("):
        line[1][1] = style
        path.write_text(json.dumps(data))
        kept_renders.forget()
        kept_renders.use(path)  # no exception
        assert kept_renders.kept(CORPUS[0], 60, PALETTES[0]) is None


def test_renders_without_the_markdown_stack_are_written_only_without_plain_code(
    tmp_path: Path, kept: None
) -> None:
    """A render made while code waits for its lexer (highlight_later) may hold plain code:
    the next start would show it plain for good, so it is not kept."""
    from milk_tui.tui.widgets import highlight_later

    # a language whose lexer no earlier test in this process has loaded (a loaded one
    # renders highlighted even while deferring)
    language = next(
        name
        for name in ("cobol", "fortran", "ada", "vhdl", "prolog", "smalltalk", "modula2")
        if not highlight_later.lexer_loaded(name)
    )
    code = f"```{language}\nDISPLAY 'x'.\n```\n"
    path = tmp_path / kept_renders.FILE_NAME
    kept_renders.use(path)
    highlight_later.defer()
    try:
        render_markdown(code, 60, PALETTES[0])
        render_markdown("no code here", 60, PALETTES[0])
    finally:
        highlight_later.stop()
    kept_renders.save(path)
    kept_renders.forget()
    kept_renders.use(path)
    assert kept_renders.kept(code, 60, PALETTES[0]) is None
    assert kept_renders.kept("no code here", 60, PALETTES[0]) is not None
    assert markdown_lines("x", 10, PALETTES[0])  # the stack still renders


SESSION = """
import os
from milk_tui.config.paths import database_file
from milk_tui.model.session import Turn
from milk_tui.storage.db import Database
from milk_tui.storage.sessions import SessionStore

REPLY = "Here is the **answer** to {i}.\\n\\n- a point with `code`\\n\\n```python\\nx = {i}\\n```\\n"
db = Database(database_file())
store = SessionStore(db)
s = store.create(os.getcwd(), "kept")
turns = []
for i in range(20):
    turns += [Turn("user", f"question {i}", agent="primary"),
              Turn("assistant", REPLY.format(i=i), agent="primary")]
s.history.extend(turns)
store.commit_turns(s, turns)
db.close()
"""

START = """
import argparse, sys, time
from milk_tui.tui import launch
from milk_tui.tui.widgets import highlight_later, kept_renders
from milk_tui.tui.widgets.reply_block import ReplyBlock

STACK = ("markdown_it", "rich.markdown", "pygments")
STAY = sys.argv[1] == "stay"

def lines(strips):
    return [[(seg.text, str(seg.style)) for seg in strip] for strip in strips]

class Probe(launch.MilkApp):
    last = None

    def run(self, *args, **kwargs):
        Probe.last = self
        return super().run(headless=True, size=(120, 40))

    def _after_first_main_frame(self):
        self.at_frame = sorted(m for m in STACK if m in sys.modules)
        views = [v for v in self.main_screen.query(ReplyBlock) if v.display]
        self.shown = [(v.text, v._width, v.palette, lines(v._fixed)) for v in views]
        self.deadline = time.monotonic() + 20
        super()._after_first_main_frame()
        self.set_interval(0.02, self._done)

    def _done(self):
        # stay: until the code shown plain is highlighted again and those renders noted
        if STAY and time.monotonic() < self.deadline:
            if highlight_later.deferring() or len(kept_renders._noted) < len(self.shown):
                return
        self.exit()

launch.MilkApp = Probe
launch.run_app(argparse.Namespace(demo=True))
app = Probe.last
highlight_later.stop()
kept_renders.forget()
from milk_tui.tui.widgets.md_render import render_markdown
render_markdown.cache_clear()
same = [
    shown[len(shown) - len(fresh):] == fresh
    for text, width, palette, shown in app.shown
    for fresh in [lines(render_markdown(text, width, palette))]
]
print(repr((app.at_frame, len(same), all(same))))
"""


def test_a_resumed_session_paints_its_replies_from_the_last_run_without_the_markdown_stack(
    tmp_path: Path,
) -> None:
    """The first start renders the replies it shows (and, staying, highlights their code);
    the next one paints the same lines from what the first kept, the Markdown stack not
    loaded by its first frame."""
    _run(SESSION, tmp_path)
    at_frame, shown, same = ast.literal_eval(_run(START, tmp_path, "stay").splitlines()[-1])
    assert at_frame == ["markdown_it", "pygments", "rich.markdown"] and shown >= 2
    for _ in range(2):  # and the start after: what a start kept is kept again
        at_frame, shown_again, same = ast.literal_eval(
            _run(START, tmp_path, "leave").splitlines()[-1]
        )
        assert (at_frame, shown_again, same) == ([], shown, True)


def _run(code: str, home: Path, *args: str) -> str:
    env = {**os.environ, "MILK_HOME": str(home), "MILK_DEMO_PACE": "0"}
    run = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=home,
        env=env,
        timeout=120,
    )
    return run.stdout
