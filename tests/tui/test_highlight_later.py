"""Code on the main screen's first frame waits for its lexer (tui/widgets/highlight_later.py):
plain while deferred, in the same box, and highlighted once the lexer is loaded."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from milk_tui.model.session import Turn
from milk_tui.tui.app import MilkApp
from milk_tui.tui.widgets import highlight_later
from milk_tui.tui.widgets.md_render import render_markdown
from milk_tui.tui.widgets.palette import Palette
from milk_tui.tui.widgets.reply_block import ReplyBlock

from .conftest import until
from .test_two_part_startup import HeldOpening, _resumable_session

PLAIN_THEN_HIGHLIGHTED = r"""
from milk_tui.tui.widgets import highlight_later
from milk_tui.tui.widgets.md_render import markdown_lines
from milk_tui.tui.widgets.palette import Palette

palette = Palette()
text = "Look:\n\n```ada\nprocedure Hello is begin Put_Line (\"hi\"); end Hello;\n```\n"
assert not highlight_later.lexer_loaded("ada")  # nothing in this process compiled it
import sys
assert "pygments.lexers.ada" not in sys.modules  # nor did asking import its module

def colours(lines):
    return {s.style.color for line in lines for s in line if s.text.strip() and s.style}

highlight_later.defer()
plain = markdown_lines(text, 60, palette)
assert highlight_later.waiting_languages() == ["ada"]
assert not highlight_later.lexer_loaded("ada")  # the render did not load it
from pygments.lexers import get_lexer_by_name
get_lexer_by_name("ada")
assert highlight_later.stop() is True
lit = markdown_lines(text, 60, palette)
print(len(plain), len(lit), len(colours(plain)), len(colours(lit)))
"""


def test_deferred_code_is_plain_in_the_same_box_then_highlighted() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PLAIN_THEN_HIGHLIGHTED],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.split()
    plain_lines, lit_lines, plain_colours, lit_colours = map(int, out)
    assert plain_lines == lit_lines  # nothing below the block moves when it is highlighted
    assert lit_colours > plain_colours


def test_not_deferred_code_is_highlighted_at_once() -> None:
    assert not highlight_later.deferring()
    palette = Palette()
    lines = render_markdown("```python\ndef f(x):\n    return x\n```\n", 50, palette)
    assert len({s.style.color for line in lines for s in line if s.text.strip()}) > 1


async def test_a_resumed_sessions_code_is_highlighted_after_the_first_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Painted plain on the first frame (its lexer not loaded), highlighted after it."""
    assert not highlight_later.lexer_loaded("ada")  # no test in this process used it
    stops: list[bool] = []
    real_stop = highlight_later.stop
    monkeypatch.setattr(highlight_later, "stop", lambda: stops.append(real_stop()) or stops[-1])
    cwd = tmp_path / "proj"
    cwd.mkdir()
    _resumable_session(cwd, 0)
    code = "Here:\n\n```ada\nprocedure Double is begin X := 2 * X; end Double;\n```\n"
    from milk_tui.facade.opening import open_application

    app0 = open_application(cwd=str(cwd), demo=True).finish()
    s, store = app0.runtime.session, app0.runtime.store
    batch = [Turn("user", "show me", agent="primary"), Turn("assistant", code, agent="primary")]
    s.history.extend(batch)
    store.commit_turns(s, batch)
    app0.close_database()

    opening = HeldOpening(cwd)
    opening.release.set()
    app = MilkApp(runtime_factory=opening)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.application is not None, 20)
        await until(pilot, lambda: not highlight_later.deferring(), 20)
        await pilot.pause()
        reply = [b for b in app.main_screen.query(ReplyBlock) if "Double" in b.text][0]
        lines = [reply.render_line(y) for y in range(reply.size.height)]
        code_colours = {
            seg.style.color
            for line in lines
            for seg in line
            if seg.style and seg.text.strip() in ("procedure", "Double", "begin", "end")
        }
        assert len(code_colours) > 1  # keywords and names no longer share one colour
    assert stops[0] is True  # the first frame showed the block plain
    assert not highlight_later.deferring()


def test_a_lexer_that_fails_to_load_still_ends_the_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """The thread always hands back: code shown plain must not stay plain for the session."""
    import threading

    import pygments.lexers

    from milk_tui.tui.widgets import md_render

    def broken(name: str, **options: object) -> object:
        raise RuntimeError("a plugin lexer that cannot load")

    monkeypatch.setattr(pygments.lexers, "get_lexer_by_name", broken)
    monkeypatch.setattr(md_render, "_warm_started", True)  # only the waiting languages
    assert not highlight_later.lexer_loaded("brainfuck")  # no test in this process used it
    highlight_later.defer()
    try:
        md_render.markdown_lines("```brainfuck\n++[>+<-]\n```\n", 40, Palette())
        assert highlight_later.waiting_languages() == ["brainfuck"]
        done = threading.Event()
        md_render.warm_highlighter(Palette(), done.set)
        assert done.wait(10)
    finally:
        highlight_later.stop()
    assert not highlight_later.deferring()


async def test_the_replies_shown_plain_are_rendered_again_a_few_per_screen_update(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each is a Markdown render with its code highlighted, in the layout of the update that
    follows: all of a window's at once held the loop 20–25 ms."""
    from milk_tui.tui.widgets import code_warmup
    from milk_tui.tui.widgets.stream_view import StreamView

    assert not highlight_later.lexer_loaded("cobol")  # no test in this process used it
    cwd = tmp_path / "proj"
    cwd.mkdir()
    _resumable_session(cwd, 0)
    from milk_tui.facade.opening import open_application

    app0 = open_application(cwd=str(cwd), demo=True).finish()
    s, store = app0.runtime.session, app0.runtime.store
    for i in range(5):
        code = f"Step {i}:\n\n```cobol\n       DISPLAY 'STEP {i}'.\n```\n"
        batch = [Turn("user", f"step {i}", agent="primary"), Turn("assistant", code)]
        s.history.extend(batch)
        store.commit_turns(s, batch)
    app0.close_database()

    rendered: list[str] = []
    per_update: list[int] = []
    real_rerender, real_stop = StreamView.rerender, highlight_later.stop

    def rerender(view: StreamView) -> None:
        rendered.append(view.text)
        real_rerender(view)

    def stop() -> bool:  # the re-renders start: count them between the screen's updates
        screen = app.main_screen
        if screen is None or not app.is_running:  # the app's own stop as it leaves
            return real_stop()
        screen.screen_layout_refresh_signal.subscribe(
            app, lambda _: per_update.append(len(rendered)), immediate=True
        )
        return real_stop()

    monkeypatch.setattr(StreamView, "rerender", rerender)
    monkeypatch.setattr(highlight_later, "stop", stop)
    opening = HeldOpening(cwd)
    opening.release.set()
    app = MilkApp(runtime_factory=opening)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: len(rendered) == 5, 20)
        await pilot.pause()
    assert sorted(rendered) == sorted(t for t in rendered if "```cobol" in t)
    steps = [b - a for a, b in zip([0, *per_update], per_update, strict=False)]
    assert max(steps) <= code_warmup.RERENDER_AT_ONCE, steps
    assert "STEP 4" in rendered[0]  # the last reply, in view, first
