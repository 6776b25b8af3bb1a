"""A long session opens on its tail; scrolling up pages older turns in from the store until
the first turn is on screen (model/turn_history.py, tui/widgets/older_turns.py)."""

from __future__ import annotations

import time
from typing import Any

from milk_tui.engine.open_store import HISTORY_TAIL
from milk_tui.tui.screens.startup import TAIL_TURNS
from milk_tui.tui.widgets.conversation import Conversation
from tui.conftest import make_app
from tui.test_transcript import _big_session


async def scroll_to_first_turn(pilot: Any, conv: Conversation, deadline_s: float = 120) -> None:
    """Scroll to the top as a user holding Home would, until nothing older is left; fails
    naming what it waited for at the deadline."""
    end = time.monotonic() + deadline_s
    while conv._first > 0 or conv._source is not None:
        if time.monotonic() > end:
            raise AssertionError(
                f"the first turn at the top: still {conv._first} blocks and "
                f"{conv._source.remaining if conv._source else 0} turns above"
            )
        conv.scroll_home(animate=False, immediate=True)
        await pilot.pause()
    await pilot.pause()
    conv.scroll_home(animate=False, immediate=True)
    await pilot.pause()


async def test_scrolling_up_a_1000_turn_session_reaches_its_first_turn() -> None:
    _big_session(1000)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        session = app.runtime.session
        conv = app.main_screen.query_one(Conversation)
        # Held: the tail; the rest is in the store, and the transcript has only the tail.
        assert len(session.history) == 1000 and session.unread == 1000 - HISTORY_TAIL
        assert int(conv.items[0].extra["turn"]) == 1000 - TAIL_TURNS + 1
        await scroll_to_first_turn(pilot, conv)
        assert conv.items[0].extra["turn"] == "1" and conv.items[0].text == "question 0"
        assert [it.extra["turn"] for it in conv.items if it.kind == "user"] == [
            str(i) for i in range(1, 1000, 2)
        ]
        first = conv._blocks[0]  # on screen, at the top
        assert conv.scroll_y == 0 and first.region.height > 0
        assert conv.region.y <= first.region.y < conv.region.bottom
