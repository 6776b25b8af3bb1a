"""Every key binding (by id), the permission modal, keymap remapping and the error path."""

from __future__ import annotations

import asyncio

import pytest
from textual import events
from textual._xterm_parser import XTermParser

from milk_tui.agents.base import PermissionQuestion
from milk_tui.config.settings import MilkConfig
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.tui.facts.table import FactTable
from milk_tui.tui.keymap import APP_BINDINGS, INPUT_BINDINGS, binding_ids
from milk_tui.tui.keymap_check import validate_keymap
from milk_tui.tui.screens.context_modal import ContextModal
from milk_tui.tui.screens.help_modal import HelpModal
from milk_tui.tui.screens.history_search import HistorySearch
from milk_tui.tui.screens.main import MainScreen
from milk_tui.tui.screens.permission_modal import PermissionModal
from milk_tui.tui.terminal_keys import ESC_CR
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.prompt_input import PromptInput
from milk_tui.tui.widgets.thinking_block import ThinkingBlock
from milk_tui.tui.widgets.user_turn import UserTurn
from tui.conftest import fake_agent_config, make_app, settle, type_and_send, until


def test_every_binding_has_a_unique_id() -> None:
    ids = binding_ids()
    assert len(ids) == len(APP_BINDINGS) + len(INPUT_BINDINGS)
    assert len(set(ids)) == len(ids)
    assert all(i.startswith("milk.") for i in ids)


def test_keymap_validation_knows_every_screens_ids() -> None:
    """Ids of the fact browser, sessions screen and modals are remappable too: no false warning."""
    ok = {"facts.add": "A", "sessions.rename": "R", "confirm.yes": "j", "milk.tool.toggle": "t"}
    assert validate_keymap(ok) == []
    [note] = validate_keymap({"milk.toggle_thinkng": "f9"})
    assert "unknown binding id 'milk.toggle_thinkng'" in note and "milk.toggle_thinking" in note


async def test_input_keys_enter_newline_history_tab() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        box = app.main_screen.query_one(PromptInput)
        await pilot.press(*"line one")
        await pilot.press("ctrl+j")
        await pilot.press(*"two")
        assert box.text == "line one\ntwo"
        box.set_text("")
        await pilot.press(*"alt", "alt+enter", *"enter")
        assert box.text == "alt\nenter"
        box.set_text("")
        await type_and_send(pilot, "what is a monad?")
        await type_and_send(pilot, "how do lenses work?")
        assert box.text == ""
        await pilot.press("up")
        assert box.text == "how do lenses work?"
        await pilot.press("up")
        assert box.text == "what is a monad?"
        await pilot.press("down", "down")
        assert box.text == ""
        await pilot.press("ctrl+up")
        assert box.text == "how do lenses work?"
        box.set_text("/esc")
        await pilot.press("tab")
        assert box.text == "/escalate "
        box.set_text("/th")
        await pilot.press("tab")
        assert box.text in ("/think ", "/theme ")  # no longer prefix to add: Tab picks one
        await pilot.press("ctrl+r")
        assert isinstance(app.screen, HistorySearch)
        await pilot.press(*"monad", "enter")
        await pilot.pause()
        assert box.text == "what is a monad?"


async def test_alt_enter_sent_as_esc_cr_inserts_a_newline() -> None:
    """tmux sends Alt+Enter as ESC CR; the keys the terminal parser makes of it reach the
    prompt, which inserts a newline (help's "Newline") instead of sending."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        box = app.main_screen.query_one(PromptInput)
        await pilot.press(*"one")
        parser = XTermParser()
        parsed = [*parser.feed(ESC_CR), *parser.feed("")]  # "" ends the input: flushes a lone ESC
        keys = [k.key for k in parsed if isinstance(k, events.Key)]
        await pilot.press(*keys)
        await pilot.press(*"two")
        await pilot.pause()
        assert box.text == "one\ntwo"
        conv = app.main_screen.query_one(Conversation)
        assert not [t for t in conv.query(UserTurn) if t.display]  # only the hidden spare


async def test_app_keys() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.main_screen
        await type_and_send(pilot, "/escalate design a parser")
        await pilot.press("f1")
        assert isinstance(app.screen, HelpModal)
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        await pilot.press("f2")  # the tasks pane, then nothing, then the panes again
        assert screen.has_class("-side-tasks") and app.ui_state.side_tasks
        await pilot.press("f2")
        assert screen.has_class("-side-hidden") and not app.ui_state.side_panes
        await pilot.press("f2")
        assert not screen.has_class("-side-hidden") and not screen.has_class("-side-tasks")
        await pilot.press("ctrl+t")
        assert screen.query_one(ThinkingBlock).expanded
        await pilot.press("ctrl+t")
        assert not screen.query_one(ThinkingBlock).expanded
        await pilot.press("f4")
        assert isinstance(app.screen, ContextModal)
        assert "demo-claude" in app.screen.agent_name
        await pilot.press("escape")
        await pilot.press("f6")
        await pilot.pause()
        from milk_tui.tui.facts.screen import FactsScreen

        assert isinstance(app.screen, FactsScreen)
        await pilot.press("escape")
        await pilot.press("f7")
        await pilot.pause()
        from milk_tui.tui.sessions_screen import SessionsScreen

        assert isinstance(app.screen, SessionsScreen)
        await pilot.press("escape")
        before = app.theme
        await pilot.press("f8")
        assert app.theme != before
        await pilot.press("f3")
        await pilot.pause()
        assert app.focused is screen.query_one("#fact-search")
        await pilot.press("enter")
        assert isinstance(app.focused, FactTable)
        await pilot.press("escape")
        assert isinstance(app.focused, PromptInput)
        conv = screen.query_one(Conversation)
        await pilot.press("pageup")
        await pilot.press("ctrl+home")
        await pilot.pause()
        assert conv.scroll_y == 0
        await pilot.press("pagedown", "ctrl+end")
        await pilot.pause()
        assert conv.scroll_y == conv.max_scroll_y


async def test_ctrl_c_clears_then_quits_twice() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        box = app.main_screen.query_one(PromptInput)
        box.set_text("draft")
        await pilot.press("ctrl+c")
        assert box.text == ""
        await pilot.press("ctrl+c")
        assert "press ctrl+c again" in app.main_screen.query_one("#status").plain
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.shut_down


@pytest.mark.parametrize(
    "keys", [("ctrl+q",), ("ctrl+c", "ctrl+c")], ids=["ctrl+q", "ctrl+c twice"]
)
async def test_quit_keys_on_an_empty_prompt(keys: tuple[str, ...]) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*keys)
        await pilot.pause()
    assert app.shut_down


async def test_narrow_terminal_hides_side_panes_and_f2_shows_them() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        side = app.main_screen.query_one("#side")
        assert not side.display or side.region.width == 0
        await pilot.press("f2")
        await pilot.pause()
        assert side.region.width > 0
        await pilot.press("f2")  # the tasks pane, then hidden again
        await pilot.pause()
        assert app.main_screen.query_one("#tasks").display
        await pilot.press("f2")
        await pilot.pause()
        assert not side.display
        await pilot.press("f3")  # into the facts search box: the collapsed panes open for it
        await pilot.pause()
        assert side.display and app.focused is side.query_one("#fact-search")


async def test_permission_request_modal_answers_dispatcher() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        d = app.runtime.dispatcher
        q = PermissionQuestion(
            agent_name="demo-claude", tool_name="Bash", tool_input={"command": "ls"}
        )
        task = asyncio.create_task(d._ask_permission(q))
        await settle(pilot, app)
        assert isinstance(app.screen, PermissionModal)
        assert app.screen.request.tool_name == "Bash"
        await pilot.press("y")
        assert (await asyncio.wait_for(task, 2)).allow is True
        task = asyncio.create_task(d._ask_permission(q))
        await settle(pilot, app)
        await pilot.press("ctrl+c")  # Ctrl+C on a permission question means no
        assert (await asyncio.wait_for(task, 2)).allow is False


async def test_keymap_from_config_remaps_binding() -> None:
    cfg = MilkConfig(keymap={"milk.toggle_thinking": "f9"})
    app = make_app(config=cfg)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f9")
        await pilot.pause()
        assert app.ui_state.show_thinking


async def test_failed_turn_shows_error_inline_and_restores_prompt() -> None:
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(
            status=500, error_body='{"error": {"message": "model exploded"}}'
        )
        cfg = fake_agent_config(srv.url)
        app = make_app(config=cfg, demo=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await type_and_send(pilot, "hello there")
            items = app.main_screen.query_one(Conversation).items
            errors = [it.text for it in items if it.kind == "error"]
            assert errors and "500" in errors[-1] and "fake" in errors[-1]
            assert app.main_screen.query_one(PromptInput).text == "hello there"
            assert app.runtime.dispatcher.session.history == []


async def test_startup_loads_core_after_first_frame_and_reports_config_errors() -> None:
    from milk_tui.config.load import ConfigError
    from milk_tui.engine.runtime import build_runtime
    from milk_tui.tui.app import EXIT_STARTUP_FAILED, MilkApp
    from milk_tui.tui.screens.startup import StartupScreen

    app = MilkApp(runtime_factory=lambda: build_runtime(cwd="/tmp/milk-startup", demo=True))
    async with app.run_test(size=(120, 40)) as pilot:
        # The main screen is pushed when the core has loaded, then composes: wait for both.
        await until(pilot, lambda: bool(app.screen.query(PromptInput)))
        assert isinstance(app.screen, MainScreen)
        assert not any(isinstance(s, StartupScreen) for s in app.screen_stack)
        await type_and_send(pilot, "what is a monad?")
        assert len(app.runtime.session.history) == 2

    def broken():  # type: ignore[no-untyped-def]
        raise ConfigError("config.toml: agents[0].url: expected a URL")

    app = MilkApp(runtime_factory=broken)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: bool(app.startup_error))
    assert app.return_value == EXIT_STARTUP_FAILED
    assert app.startup_error == "config error: config.toml: agents[0].url: expected a URL"


async def test_quit_hint_is_on_screen_on_a_long_status_line() -> None:
    """The status line ends in an ellipsis at 80 columns; the Ctrl+C hint must not be cut."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await type_and_send(pilot, "please refactor the parser")  # why + two token totals
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert (
            "press ctrl+c again to exit" in app.main_screen.query_one("#status").render_line(0).text
        )


async def test_the_agents_connection_is_opened_once_the_main_screen_is_up() -> None:
    """Preconnect runs as a worker after the first main frame: the fake server sees the
    availability probe before any prompt is typed."""
    with FakeOpenAIServer() as srv:
        app = make_app(config=fake_agent_config(srv.url), demo=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: any(r.method == "GET" for r in srv.requests))
            assert [r.path for r in srv.requests if r.method == "GET"][:1] == ["/v1/models"]
            assert srv.chat_requests == []


async def test_ctrl_d_quits_on_an_empty_prompt_and_deletes_right_otherwise() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        box = app.main_screen.query_one(PromptInput)
        box.set_text("xabc")
        box.move_cursor((0, 0))
        await pilot.press("ctrl+d")
        await pilot.pause()
        assert box.text == "abc" and app.is_running
        box.set_text("")
        await pilot.press("ctrl+d")
        await until(pilot, lambda: not app.is_running)
    assert app.return_code == 0
