"""Thinking text, collapsed to one line unless thinking is shown (Ctrl+T, /think)."""

from __future__ import annotations

from rich.style import Style
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.events import Click
from textual.widgets import Static

from milk_tui.tui.widgets.stream_view import StreamView

THINK_STYLE = Style(dim=True, italic=True)


class ThinkingBlock(Vertical):
    DEFAULT_CSS = """
    ThinkingBlock { height: auto; padding: 0 1; margin: 0 0 1 0; }
    ThinkingBlock > .think-head { color: $text-muted; height: 1; }
    ThinkingBlock > StreamView { color: $text-muted; padding-left: 2; }
    ThinkingBlock.-collapsed > StreamView { display: none; }
    """

    def __init__(self, text: str = "", *, done: bool = False, expanded: bool = False) -> None:
        super().__init__(classes="" if expanded else "-collapsed")
        self.view = StreamView(text, markdown=False, done=done, text_style=THINK_STYLE)
        self.head = Static(self._head_text(expanded), classes="think-head", markup=False)

    def compose(self) -> ComposeResult:
        yield self.head
        yield self.view

    @property
    def expanded(self) -> bool:
        return not self.has_class("-collapsed")

    def _head_text(self, expanded: bool) -> str:
        return "▾ thinking" if expanded else "▸ thinking… (ctrl+t to show)"

    def set_expanded(self, expanded: bool) -> None:
        self.set_class(not expanded, "-collapsed")
        self.head.update(self._head_text(expanded))

    def append(self, text: str) -> None:
        self.view.append(text)

    def finish(self) -> None:
        self.view.finish()

    def on_click(self, event: Click) -> None:
        event.stop()
        self.set_expanded(not self.expanded)
