"""One agent reply: a header naming the agent, then the streamed Markdown."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.strip import Strip

from milk_tui.tui.widgets.md_render import Palette
from milk_tui.tui.widgets.stream_view import StreamView


class ReplyBlock(StreamView):
    DEFAULT_CSS = """
    ReplyBlock { height: auto; margin: 0 0 1 0; padding: 0 1; }
    """

    def __init__(
        self,
        agent_name: str,
        slot: str,
        text: str = "",
        *,
        done: bool = False,
        palette: Palette | None = None,
    ) -> None:
        super().__init__(
            text, markdown=True, done=done, palette=palette, classes=f"reply -{slot or 'primary'}"
        )
        self.agent_name = agent_name
        self.slot = slot

    def reserve_line(self, reserve: bool = True) -> None:
        """Keep one line below the header while no text is there, so the first line of
        text fills it at an unchanged height: the screen then repaints this block's region
        alone instead of laying out and re-compositing everything above it."""
        self._min_lines = len(self._header_lines()) + 1 if reserve else 0

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        # The layout pass that calls this has just placed the block at this size: a
        # growing reply needs no second pass, which Textual asks for whenever a widget's
        # ``virtual_size`` changes (half the screen updates of a fast stream were such
        # passes, docs/performance.md "The hot path, round 7").  Private Textual API.
        return super()._size_updated(size, virtual_size, container_size, layout=False)

    def _header_lines(self) -> list[Strip]:
        p = self.palette
        color = p.primary if self.slot != "escalation" else p.accent
        label = f"◆ {self.agent_name}" if self.agent_name else "◆"
        return [Strip([Segment(label, Style(bold=True, color=color))])]
