"""Copying from the conversation in the real TUI (Pilot, fake OpenAI server): Alt+C copies
a reply and Alt+K a code block (again: the one before), a mouse selection is copied by
Ctrl+C between turns, and Ctrl+C still cancels a running turn."""

from __future__ import annotations

from tui.conftest import fake_agent_config, make_app, settle, type_and_send, until

from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.prompt_input import PromptInput
from milk_tui.tui.widgets.reply_block import ReplyBlock

FIRST = "Use this:\n\n```python\nprint('first')\n```\n\nand then:\n\n```sh\nmake test\n```\n"
SECOND = "The second answer, with no code."


async def test_alt_c_and_alt_k_copy_replies_and_code_blocks_walking_back() -> None:
    with FakeOpenAIServer() as srv:
        srv.enqueue(FakeReply(text=[FIRST]), FakeReply(text=[SECOND]))
        app = make_app(config=fake_agent_config(srv.url), demo=False)
        async with app.run_test(size=(100, 40)) as pilot:
            await type_and_send(pilot, "how do I print?")
            await type_and_send(pilot, "and then?")
            await pilot.press("alt+k")
            await until(pilot, lambda: app.clipboard == "make test\n")
            assert app.clipboard == "make test\n"
            await pilot.press("alt+k")
            await until(pilot, lambda: app.clipboard == "print('first')\n")
            assert app.clipboard == "print('first')\n"
            await pilot.press("alt+c")
            await until(pilot, lambda: app.clipboard == SECOND)
            assert app.clipboard == SECOND
            await pilot.press("alt+c")
            await until(pilot, lambda: app.clipboard == FIRST.strip("\n") or app.clipboard == FIRST)
            assert app.clipboard.strip() == FIRST.strip()
            # The copied reply is shown selected: Ctrl+C copies it (as shown), Escape clears.
            assert app.main_screen.selections
            await pilot.press("escape")
            assert not app.main_screen.selections


async def test_a_mouse_selection_is_copied_by_ctrl_c_and_a_running_turn_still_cancels() -> None:
    with FakeOpenAIServer() as srv:
        srv.enqueue(
            FakeReply(text=["The parser lives in src/parse.rs today."]),
            FakeReply(hang="after_headers"),
        )
        app = make_app(config=fake_agent_config(srv.url), demo=False)
        async with app.run_test(size=(100, 40)) as pilot:
            await type_and_send(pilot, "where is the parser?")
            box = app.main_screen.query_one(PromptInput)
            box.set_text("draft I keep")
            (block,) = [b for b in app.main_screen.query(ReplyBlock) if b.text]
            # Drag over the reply's text row (row 0 is the header "◆ fake").
            await pilot.mouse_down(block, offset=(5, 1))
            await pilot.hover(block, offset=(11, 1))
            await pilot.mouse_up(block, offset=(11, 1))
            await until(pilot, lambda: bool(app.main_screen.get_selected_text()))
            selected = app.main_screen.get_selected_text()
            assert selected and selected in "The parser lives in src/parse.rs today.", selected
            await pilot.press("ctrl+c")
            await until(pilot, lambda: app.clipboard == selected)
            assert app.clipboard == selected
            assert box.text == "draft I keep", "Ctrl+C copied, it must not clear the prompt too"
            assert not app.main_screen.selections

            box.set_text("")
            await pilot.press("escape", *"hang on", "enter")  # Escape: back to the prompt
            await until(pilot, lambda: app.facade.busy)
            assert app.facade.busy
            await pilot.mouse_down(block, offset=(5, 1))
            await pilot.hover(block, offset=(11, 1))
            await pilot.mouse_up(block, offset=(11, 1))
            await until(pilot, lambda: bool(app.main_screen.get_selected_text()))
            app.copy_to_clipboard("before")
            assert app.facade.busy, [i.text for i in app.main_screen.query_one(Conversation).items]
            await pilot.press("ctrl+c")  # a turn runs: Ctrl+C cancels it, copies nothing
            await settle(pilot, app)
            assert not app.facade.busy
            assert app.clipboard == "before"
            items = app.main_screen.query_one(Conversation).items
            assert items[-1].text == "[interrupted]"
