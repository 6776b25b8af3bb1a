"""A growing reply costs one layout pass of the screen per frame, not two (Textual lays out
again whenever a widget's ``virtual_size`` changes; ``ReplyBlock`` and ``FollowScroll``
take the size the pass just gave them), and the conversation still follows its bottom."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.screen import Screen

from milk_tui.tui.widgets.follow_scroll import FollowScroll
from milk_tui.tui.widgets.reply_block import ReplyBlock


class OneReply(App[None]):
    def compose(self) -> ComposeResult:
        with FollowScroll(id="conv"):
            yield ReplyBlock("llama", "primary")


async def test_each_frame_of_a_growing_reply_is_laid_out_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    passes = [0]
    refresh_layout = Screen._refresh_layout

    def counted(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
        passes[0] += 1
        refresh_layout(self, *args, **kwargs)

    app = OneReply()
    async with app.run_test(size=(60, 12)) as pilot:
        reply = app.query_one(ReplyBlock)
        conv = app.query_one(FollowScroll)
        reply.append("".join(f"earlier line {i}\n\n" for i in range(20)))
        for _ in range(4):  # taller than the screen: the scrollbar is there from now on
            await pilot.pause()
        monkeypatch.setattr(Screen, "_refresh_layout", counted)
        for i in range(6):
            passes[0] = 0
            reply.append(f"line {i} of a reply that grows\n\n")
            for _ in range(4):  # a second pass would come at one of the next ticks
                await pilot.pause()
            assert passes[0] == 1, f"frame {i}: {passes[0]} layout passes"
        assert conv.max_scroll_y > 0 and conv.scroll_y == conv.max_scroll_y
