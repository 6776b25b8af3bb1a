"""Long sessions: only the tail is mounted, older turns load on scroll; jump to a turn."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from textual.pilot import Pilot

from milk_tui.facade.export import session_text
from milk_tui.model.session import Turn
from milk_tui.tui.app import MilkApp
from milk_tui.tui.facts.browser import FactBrowser
from milk_tui.tui.transcript import Item, items_from_history, screenful
from milk_tui.tui.widgets.conversation import MAX_MOUNTED, PAGE, WINDOW, Conversation
from milk_tui.tui.widgets.stream_view import StreamView
from tui.conftest import SNAP_CWD, SNAP_SESSION, make_app, settle, type_and_send


def _big_session(turns: int) -> None:
    from milk_tui.config.paths import database_file
    from milk_tui.storage.db import Database
    from milk_tui.storage.sessions import SessionStore

    db = Database(database_file())
    store = SessionStore(db)
    s = store.create(SNAP_CWD, SNAP_SESSION)
    new = []
    for i in range(turns // 2):
        new.append(Turn("user", f"question {i}", agent="primary", agent_name="demo-local"))
        new.append(
            Turn(
                "assistant",
                f"answer **{i}**\n\n- point\n",
                agent="primary",
                agent_name="demo-local",
            )
        )
    s.history.extend(new)
    store.commit_turns(s, new)
    db.close()


@asynccontextmanager
async def _long_session() -> AsyncIterator[tuple[MilkApp, Pilot[Any], Conversation]]:
    """The app at 120x40 on a stored session of 400 turns, after its first frame."""
    _big_session(400)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()  # the older items are made after the tail
        await pilot.pause()
        yield app, pilot, app.main_screen.query_one(Conversation)


async def test_long_session_mounts_tail_and_loads_older_on_scroll() -> None:
    async with _long_session() as (app, pilot, conv):
        # the session's newest turns are held; the rest stay in the store until scrolled to
        held = len(conv.items)
        assert held < 400 and conv._source is not None and conv._source.remaining == 400 - held
        mounted = [w for w in conv.children if not w.has_class("older") and w.display]
        assert len(mounted) == WINDOW
        assert conv.items[conv._first].text == f"question {(400 - WINDOW) // 2}"
        assert conv.scroll_y == conv.max_scroll_y  # newest in view
        top = conv.items[conv._first]
        conv.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        await pilot.pause()
        older = conv.items.index(top)
        assert conv._first == older - PAGE  # a page more mounted above what was the top
        assert conv.scroll_y > 0  # the view stayed on what the user was reading
        # new turns while at the bottom: the window prunes back under the cap
        conv.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        while len(conv._blocks) <= MAX_MOUNTED:
            conv.load_older()
        await pilot.pause()
        conv.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        await type_and_send(pilot, "what is a monad?")
        assert len(conv._blocks) <= MAX_MOUNTED


async def test_the_first_frame_mounts_a_screenful_and_the_window_fills_after(
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    """Each mounted reply costs a Markdown render before the first paint: the first frame
    mounts what fills the screen, the rest of the window is mounted above it after."""
    first: list[tuple[int, int]] = []
    load = Conversation.load

    def recorded(self, items, welcome=None, window=WINDOW, older=None):  # type: ignore[no-untyped-def]
        load(self, items, welcome, window, older)
        first.append((window, len(self._blocks)))

    monkeypatch.setattr(Conversation, "load", recorded)
    async with _long_session() as (app, pilot, conv):
        window, mounted = first[0]
        assert 2 <= window < WINDOW and mounted == window
        await settle(pilot, app)
        assert len(conv._blocks) == WINDOW
        assert conv.scroll_y == conv.max_scroll_y  # still at the newest
        view = conv.region
        shown = [w for w in conv._blocks if w.region.bottom > view.y and w.region.y < view.bottom]
        assert 2 <= len(shown) <= window  # what the first frame mounted filled the view


def test_a_screenful_is_estimated_from_the_text() -> None:
    items = [Item("user", "q"), Item("reply", "a\n" * 9)] * 10  # 3 and 12 rows each
    assert screenful(items, 80, 40, WINDOW) == 8  # 60 rows: 40 and half a screen more
    assert screenful(items, 80, 40, 3) == 3
    assert screenful([Item("reply", "x" * 8000)], 80, 40, WINDOW) == 1
    assert screenful([], 80, 40, WINDOW) == 1


async def test_jump_to_turn_from_fact_browser() -> None:
    async with _long_session() as (app, pilot, conv):
        sid = app.runtime.dispatcher.session.id
        app.main_screen.post_message(FactBrowser.JumpToTurn(sid, 21, 7))
        await settle(pilot, app)
        assert conv._first <= 20  # item 20 is the user turn at history position 21
        target = next(w for w in conv._blocks if getattr(w, "prompt", "") == "question 10")
        assert conv.scroll_y <= target.virtual_region.y <= conv.scroll_y + conv.size.height
        app.main_screen.post_message(FactBrowser.JumpToTurn("other-session-id", 3, 8))
        await settle(pilot, app)
        assert any(
            "came from session other-se" in it.text for it in conv.items if it.kind == "notice"
        )


def test_export_text_and_history_items() -> None:
    hist = [
        Turn("user", "hi", agent="primary", agent_name="p"),
        Turn("assistant", "hello", agent="primary", agent_name="p", thinking="hmm"),
    ]
    items = items_from_history(hist)
    assert [it.kind for it in items] == ["user", "thinking", "reply"]
    text = session_text(hist)
    assert text == "❯ hi    [→ p]\n\np:\nhello\n"
    assert "hmm" not in text


async def test_stream_view_incremental_equals_final_layout_width() -> None:
    """Streaming renders blocks as they close; finishing renders only the open ones."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        view = StreamView()
        await app.main_screen.query_one(Conversation).mount(view)
        await pilot.pause()
        for piece in ["# Title\n\nfirst para", "graph\n\n```py\nx = 1\n", "```\n\nlast ", "word"]:
            view.append(piece)
            await pilot.pause()
        streaming_lines = len(view._fixed) + len(view._tail)
        assert view.block_renders == 2  # heading and paragraph closed; the fence is still last
        view.finish()
        await pilot.pause()
        assert view.rendered_final and view.text.endswith("last word")
        assert len(view._fixed) == streaming_lines
