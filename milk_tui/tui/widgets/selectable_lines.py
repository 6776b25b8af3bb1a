"""Mouse text selection for the widgets that paint their own lines (``StreamView``).

Textual finds what the mouse is over from the ``offset`` each segment carries and asks the
widget for the selected text (https://textual.textualize.io/guide/widgets/ — Line API;
``Log`` does the same): a line gets its offsets here, and the selected span of a row is
painted in the theme's ``screen--selection`` style.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget


def with_offsets(strip: Strip, y: int) -> Strip:
    return strip.apply_offsets(0, y)


def highlighted(strip: Strip, y: int, widget: Widget) -> Strip:
    """``strip`` (row ``y``) with the part the user selected highlighted, if any."""
    selection = widget.text_selection
    span = selection.get_span(y) if selection is not None else None
    if span is None:
        return strip
    length = strip.cell_length
    start, end = span
    end = length if end == -1 else min(end, length)
    if start >= end:
        return strip
    # Its background only: the themes leave the selection's foreground "transparent" (the
    # text keeps its colours), which a Rich style turns into the background colour.
    style = Style(bgcolor=widget.screen.get_component_rich_style("screen--selection").bgcolor)
    before, chosen, after = strip.divide([start, end, length])
    chosen = Strip(Segment.apply_style(list(chosen), post_style=style), chosen.cell_length)
    return Strip.join([before, chosen, after])


def selected_text(lines: list[Strip], selection: Selection) -> tuple[str, str]:
    """The selected part of the painted ``lines``, as ``Widget.get_selection`` returns it."""
    text = "\n".join(line.text.rstrip() for line in lines)
    return selection.extract(text), "\n"


class SelectableLines(Widget):
    """A Line-API widget whose painted lines the mouse selects (``highlighted`` in its
    ``render_line``, ``with_offsets`` on each line)."""

    def painted_lines(self) -> list[Strip]:
        raise NotImplementedError

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selected_text(self.painted_lines(), selection)

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()
