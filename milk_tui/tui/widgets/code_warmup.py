"""When the transcript's code highlighter is loaded: soon after the main screen's first
frame when that frame painted code plain (``highlight_later``), else a little later, before
the first reply needs it (``md_render.warm_highlighter`` loads it in a thread)."""

from __future__ import annotations

import contextlib

from textual.widget import Widget

from milk_tui.tui.widgets import highlight_later
from milk_tui.tui.widgets.md_render import Palette, warm_highlighter
from milk_tui.tui.widgets.stream_view import StreamView

WARM_AFTER_S = 0.5
"""Delay from mount to loading the highlighter when nothing waits for it: after the first
paint of the main screen, before the first reply."""


def warm_code_highlighting(transcript: Widget, palette: Palette) -> None:
    """Called when ``transcript`` (the conversation) mounts."""
    if highlight_later.deferring():
        then = lambda: _from_thread(transcript)  # noqa: E731
        transcript.call_after_refresh(warm_highlighter, palette, then)
    else:
        transcript.set_timer(WARM_AFTER_S, lambda: warm_highlighter(palette))


def _from_thread(transcript: Widget) -> None:
    with contextlib.suppress(RuntimeError):  # the app has left meanwhile
        transcript.app.call_from_thread(_highlight_code, transcript)


def _highlight_code(transcript: Widget) -> None:
    """The lexers of the code shown plain are loaded: render those replies again."""
    if highlight_later.stop():
        for view in transcript.query(StreamView):
            if view.markdown and ("```" in view.text or "~~~" in view.text):
                view.rerender()
