"""A vertical scroll that keeps its bottom in view while the user is there.

The offset is set in the layout pass itself, as Textual's own ``anchor()`` does
(https://textual.textualize.io/api/widget/#textual.widget.Widget.anchor): scrolling
after the layout (``scroll_end`` once the new height is known) would cost a second full
layout of the screen before new content is seen.  Unlike ``anchor()`` the offset is never
negative, so short content stays at the top, and scrolling up stops the following until
the user is back at the bottom.
"""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.scrollbar import ScrollBar
from textual.widget import Widget


class FollowScroll(VerticalScroll):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._follow = True
        """True while the user is at the bottom; new content then scrolls into view."""
        self._follow_pending = False

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        result = super().arrange(size, optimal)
        if self._follow and not optimal:
            bottom = max(0, result.spatial_map.total_region.bottom - size.height)
            if bottom != self.scroll_y:
                self.set_reactive(Widget.scroll_y, bottom)
                self.set_reactive(Widget.scroll_target_y, bottom)
                self.vertical_scrollbar.set_reactive(ScrollBar.position, bottom)
        return result

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        # As in ReplyBlock._size_updated: the pass that calls this placed the content, so
        # a taller conversation needs no second layout pass (the scrollbars are updated
        # all the same).  What watching ``virtual_size`` did is done here.
        grew = virtual_size != self.virtual_size
        changed = super()._size_updated(size, virtual_size, container_size, layout=False)
        if grew:
            self.follow_tail()
        return changed

    def follow_tail(self) -> None:
        """After the next refresh, make sure the bottom is in view if the user is there (a
        fallback: the layout pass normally has put it there already)."""
        if self._follow and not self._follow_pending:
            self._follow_pending = True
            self.call_after_refresh(self._do_follow)

    def _do_follow(self) -> None:
        self._follow_pending = False
        if self._follow and self.max_scroll_y > self.scroll_y:
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def watch_virtual_size(self) -> None:
        self.follow_tail()  # the content grew or shrank: this is when max_scroll_y is known

    def on_resize(self) -> None:
        self.follow_tail()  # a resize moves the bottom; keep it in view if the user was there

    def resume_follow(self) -> None:
        self._follow = True
        self.follow_tail()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._follow = new_value >= self.max_scroll_y - 1
