"""When the transcript's Markdown stack and code highlighter are loaded.  The stack: right
after the main screen's first frame in a start (``warm_markdown``: that frame may have
rendered no reply), at once for an app given its application.  The highlighter: soon after
that frame when it painted code plain (``highlight_later``), else a little later, before the
first reply needs it (``md_render.warm_highlighter`` loads it in a thread)."""

from __future__ import annotations

import contextlib
import threading

from textual.widget import Widget

from milk_tui.tui.widgets import highlight_later
from milk_tui.tui.widgets.md_blocks import block_spans
from milk_tui.tui.widgets.md_render import Palette, warm_highlighter
from milk_tui.tui.widgets.stream_view import StreamView

WARM_AFTER_S = 0.5
"""Delay from mount to loading the highlighter when nothing waits for it: after the first
paint of the main screen, before the first reply."""


def warm_code_highlighting(transcript: Widget, palette: Palette) -> None:
    """Called when ``transcript`` (the conversation) mounts."""
    if highlight_later.deferring():  # a start (tui/launch.py): its first frame came first
        transcript.call_after_refresh(warm_markdown)  # that frame may have shown no reply
        then = lambda: _from_thread(transcript)  # noqa: E731
        transcript.call_after_refresh(warm_highlighter, palette, then)
    else:  # an app given its application (tests, benchmarks): a reply may come at once
        _load_markdown()
        transcript.set_timer(WARM_AFTER_S, lambda: warm_highlighter(palette))


def warm_markdown() -> None:
    """Load the Markdown stack (``markdown_later.py``) and build the block parser in a
    daemon thread: a start that rendered no reply painted without them, and the first
    reply should not wait for them on the event loop."""

    threading.Thread(target=_load_markdown, name="warm-markdown", daemon=True).start()


def _load_markdown() -> None:
    from milk_tui.tui.widgets import markdown_later  # noqa: F401

    block_spans("warm\n")  # builds the block parser


def _from_thread(transcript: Widget) -> None:
    with contextlib.suppress(RuntimeError):  # the app has left meanwhile
        transcript.app.call_from_thread(_highlight_code, transcript)


RERENDER_AT_ONCE = 2
"""Replies rendered again per screen update once their code can be highlighted: each is a
Markdown render with Pygments (1–3 ms) in that update's layout, and all of a window's at
once (8 in a resumed session of code answers) held the loop 20–25 ms."""


def _highlight_code(transcript: Widget) -> None:
    """The lexers of the code shown plain are loaded: render those replies again, the last
    (the ones in view) first, a few per layout of the screen."""
    if highlight_later.stop():
        views = [
            view
            for view in transcript.query(StreamView)
            if view.markdown and ("```" in view.text or "~~~" in view.text)
        ]
        if views:
            _rerender_per_layout(transcript, views[::-1])


def _rerender_per_layout(transcript: Widget, views: list[StreamView]) -> None:
    """``RERENDER_AT_ONCE`` of ``views`` now, the next ones after the screen's next layout
    (the one that renders these: a refresh without a layout may come first), and so on.
    The screen's layout signal: https://textual.textualize.io/api/screen/"""
    signal = transcript.screen.screen_layout_refresh_signal
    left = list(views)

    def batch(_: object = None) -> None:
        now, left[:] = left[:RERENDER_AT_ONCE], left[RERENDER_AT_ONCE:]
        for view in now:
            if view.is_attached:  # not removed meanwhile (a session switch, the window moving)
                view.rerender()
        if not left:
            signal.unsubscribe(transcript)

    signal.subscribe(transcript, batch)
    batch()
