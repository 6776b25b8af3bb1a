"""The TUI's share of a fast first token and a fast resume
(docs/adr/0017-nothing-blocks-between-enter-and-the-request.md): the input-history row is
written after the turn starts and off the event loop; a long session's transcript is made
from its tail first, the older items in a worker thread."""

from __future__ import annotations

import threading

from milk_tui.facade.application import Application
from milk_tui.tui import transcript
from milk_tui.tui.screens import main as main_screen
from milk_tui.tui.widgets.conversation import Conversation
from tui.conftest import make_app, settle, type_and_send
from tui.test_scroll_to_first_turn import scroll_to_first_turn
from tui.test_transcript import _big_session


async def test_input_history_is_written_after_the_turn_started_off_the_loop(monkeypatch):
    calls: list[tuple[int, bool]] = []
    add_input = Application.add_input
    turn_started = False

    def spy(self: Application, text: str) -> None:
        calls.append((threading.get_ident(), turn_started))
        add_input(self, text)

    def on_event(e) -> None:  # type: ignore[no-untyped-def]
        nonlocal turn_started
        turn_started = turn_started or e.type == "turn_started"

    monkeypatch.setattr(Application, "add_input", spy)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.facade.add_listener(on_event)
        await type_and_send(pilot, "what is a monad?")
        await app.workers.wait_for_complete()
        assert app.facade.input_history()[0] == ["what is a monad?"]
    assert len(calls) == 1
    thread, after_start = calls[0]
    assert thread != threading.get_ident() and after_start


async def test_a_long_session_is_made_into_items_from_its_tail_first(monkeypatch):
    _big_session(400)
    made: list[tuple[int, int, bool]] = []
    items_from_history = transcript.items_from_history

    def spy(history, first=1):  # type: ignore[no-untyped-def]
        made.append((first, len(history), threading.current_thread() is threading.main_thread()))
        return items_from_history(history, first)

    monkeypatch.setattr(main_screen, "items_from_history", spy)  # the tail, on the loop
    monkeypatch.setattr(transcript, "items_from_history", spy)  # older pages, on scrolling
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await settle(pilot, app)
        conv = app.main_screen.query_one(Conversation)
        tail = main_screen.TAIL_TURNS
        # Only the tail is made into items; the older turns wait for a scroll up.
        assert made == [(400 - tail + 1, tail, True)]
        assert conv.items[0].extra["turn"] == str(400 - tail + 1)
        assert conv.items[-2].extra["turn"] == "399"
        marker = next(w for w in conv.children if w.has_class("older"))
        text = f"↑ {conv._first} earlier blocks and {400 - tail} earlier turns"
        assert str(marker.render()).startswith(text)
        assert conv._first == tail - len(conv._blocks)
        await scroll_to_first_turn(pilot, conv)
        assert [it.text for it in conv.items] == [
            it.text for it in items_from_history(app.runtime.session.history)
        ]


async def _typed_right_after_enter(prompt: str, after: str) -> tuple[str, list[str]]:
    """Type ``prompt``, Enter and ``after`` in one burst, as a fast typist or a terminal
    read does: the keys after Enter reach the box before the screen handles the
    submission.  The box's text once the turn is over, and the prompts sent."""
    from textual import events

    from milk_tui.tui.widgets.prompt_input import PromptInput

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        box = app.main_screen.query_one(PromptInput)
        box.focus()
        await pilot.pause()
        sent: list[str] = []
        app.facade.add_listener(
            lambda e: sent.append(e.prompt) if e.type == "turn_started" else None
        )
        for key in [*prompt, "enter", *after]:
            char = None if key == "enter" else key
            app.post_message(events.Key("space" if key == " " else key, char))
        await settle(pilot, app)
        await pilot.pause()
        return box.text, sent


async def test_keys_typed_right_after_enter_stay_and_the_prompt_sent_goes() -> None:
    text, sent = await _typed_right_after_enter("hello there", "next")
    assert sent == ["hello there"]
    assert text == "next"  # not "hello therenext"


async def test_a_literal_prompt_typed_fast_leaves_only_the_keys_after_it() -> None:
    text, sent = await _typed_right_after_enter("//etc file", "more")
    assert sent == ["/etc file"] and text == "more"
