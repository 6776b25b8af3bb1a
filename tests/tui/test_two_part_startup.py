"""Start-up in two halves (tui/app.py, facade/opening.py): the main screen is painted from the
opening — config, database, session, facts — and the agents, router and dispatcher are
built after that frame.  What a user can do in between, and what happens when the second
half fails."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from milk_tui.config.load import ConfigError
from milk_tui.facade.opening import Opening, open_application
from milk_tui.model.session import Turn
from milk_tui.tui.app import EXIT_STARTUP_FAILED, MilkApp
from milk_tui.tui.screens.main import MainScreen
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.prompt_input import PromptInput
from milk_tui.tui.widgets.status_line import StatusLine

from .conftest import until
from .test_scroll_to_first_turn import scroll_to_first_turn


class HeldOpening:
    """``open_application`` whose second half waits until the test lets it go."""

    def __init__(self, cwd: Path, history_tail: int = 0) -> None:
        self.cwd = cwd
        self.history_tail = history_tail
        self.release = threading.Event()
        self.finish_started = threading.Event()

    def __call__(self) -> Opening:
        opening = open_application(
            cwd=str(self.cwd), demo=True, cooperative=True, history_tail=self.history_tail
        )
        finish = opening.finish

        def held():  # type: ignore[no-untyped-def]
            self.finish_started.set()
            assert self.release.wait(30), "the test never released the second half"
            return finish()

        opening.finish = held  # type: ignore[method-assign]  # this opening only
        return opening


def _resumable_session(cwd: Path, turns: int) -> None:
    """A session of ``turns`` turns in ``cwd`` (the database of this test's MILK_HOME)."""
    opening = open_application(cwd=str(cwd), demo=True)
    application = opening.finish()
    store = application.runtime.store
    session = application.runtime.session
    batch = [
        Turn("user" if i % 2 == 0 else "assistant", f"turn {i}", agent="primary")
        for i in range(turns)
    ]
    session.history.extend(batch)
    store.commit_turns(session, batch)
    application.close_database()


async def test_the_session_is_painted_before_the_agents_exist_and_enter_waits_for_them(
    tmp_path: Path,
) -> None:
    _resumable_session(tmp_path, 100)
    held = HeldOpening(tmp_path)
    app = MilkApp(runtime_factory=held)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, held.finish_started.is_set)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert app.application is None  # the agents are not built yet …
        conv = screen.query_one(Conversation)
        assert conv.items[-1].text == "turn 99"  # … and the session's tail is on screen
        assert isinstance(app.focused, PromptInput)
        # Typing works; Enter waits for the agents and says so, losing nothing.
        await pilot.press(*"hello")
        await pilot.press("enter")
        await until(
            pilot, lambda: "starting the agents" in screen.query_one(StatusLine).model.turn.hint
        )
        # A binding that acts on the application is off meanwhile.
        assert screen.check_action("sessions", ()) is False
        assert screen.check_action("toggle_side", ()) is True
        held.release.set()
        await until(pilot, lambda: app.application is not None)
        await until(pilot, lambda: len(app.runtime.session.history) == 102, timeout=10)
        assert app.runtime.session.history[-2].content == "hello"
        assert "starting the agents" not in screen.query_one(StatusLine).model.turn.hint
        # The older turns become transcript items when scrolling up reaches them.
        await scroll_to_first_turn(pilot, conv)
        assert conv.items[0].text == "turn 0"
        users = [it.extra["turn"] for it in conv.items if it.kind == "user"]
        assert users == [str(i) for i in range(1, 102, 2)]  # each turn once, "hello" last


async def test_a_long_session_opens_tail_first_and_pages_older_turns_in_when_scrolled_to(
    tmp_path: Path,
) -> None:
    from milk_tui.tui.widgets.app_header import AppHeader

    _resumable_session(tmp_path, 300)
    held = HeldOpening(tmp_path, history_tail=64)
    app = MilkApp(runtime_factory=held)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, held.finish_started.is_set)
        assert app._opening is not None and app._opening.history_start() == 236
        conv = app.screen.query_one(Conversation)
        # Only the last 64 turns were read, numbered as in the whole session …
        assert [it.extra["turn"] for it in conv.items[:1]] == ["237"]
        assert conv.items[-1].text == "turn 299"
        # … and the header counts the whole session's questions.
        assert "150 questions" in str(app.screen.query_one(AppHeader).render())
        held.release.set()
        await until(pilot, lambda: app.application is not None)
        # The agents run on the tail too: the older turns stay in the store …
        assert app.runtime.session.unread == 236 and len(app.runtime.session.history) == 300
        assert conv.items[0].extra["turn"] == "237"
        # … until scrolling up reaches them (tests/tui/test_scroll_to_first_turn.py).
        await scroll_to_first_turn(pilot, conv)
        assert len(conv.items) == 300
        assert conv.items[0].extra["turn"] == "1" and conv.items[0].text == "turn 0"


async def test_a_second_half_that_fails_is_a_start_up_error(tmp_path: Path) -> None:
    def failing() -> Opening:
        opening = open_application(cwd=str(tmp_path), demo=True, cooperative=True)

        def finish():  # type: ignore[no-untyped-def]
            raise ConfigError("config.toml: agents[0]: cannot build the agent")

        opening.finish = finish  # type: ignore[method-assign]  # this opening only
        return opening

    app = MilkApp(runtime_factory=failing)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: bool(app.startup_error))
    assert app.return_value == EXIT_STARTUP_FAILED
    assert app.startup_error == "config error: config.toml: agents[0]: cannot build the agent"


async def test_quitting_before_the_agents_exist_closes_the_database(tmp_path: Path) -> None:
    held = HeldOpening(tmp_path)
    app = MilkApp(runtime_factory=held)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, held.finish_started.is_set)
        opening = app._opening
        assert opening is not None
        await pilot.press("ctrl+q")
    held.release.set()
    assert app.startup_error == ""
    with pytest.raises(Exception, match="closed"):
        opening._opened.db.conn.execute("SELECT 1")


async def test_keys_typed_before_the_main_screen_are_its_prompt_and_enter_sends_it(
    tmp_path: Path,
) -> None:
    from milk_tui.tui.screens.startup import StartupScreen

    opened = threading.Event()

    def slow_open() -> Opening:
        assert opened.wait(30), "the test never let the opening return"
        return open_application(cwd=str(tmp_path), demo=True, cooperative=True)

    app = MilkApp(runtime_factory=slow_open)
    async with app.run_test(size=(120, 40)) as pilot:
        assert isinstance(app.screen, StartupScreen)
        # ctrl+j: an Enter typed before the terminal was in raw mode arrives as a newline.
        await pilot.press(*"hellp", "backspace", "o", "ctrl+j", *"later")
        opened.set()
        await until(pilot, lambda: app.application is not None)
        await until(pilot, lambda: len(app.runtime.session.history) == 2, timeout=10)
        assert app.runtime.session.history[0].content == "hello"
        # What followed the Enter was not kept for the next prompt.
        assert app.main_screen is not None
        assert app.main_screen.query_one(PromptInput).text == ""


async def test_the_welcome_adds_what_the_second_half_found(tmp_path: Path) -> None:
    """A custom prompt file is checked when the agents are built, after the first frame:
    the welcome of an empty session then says what is wrong with it."""
    from milk_tui.tui.widgets.welcome import Welcome

    config = tmp_path / "config.toml"
    config.write_text(
        '[[agents]]\nname = "local"\nurl = "http://127.0.0.1:9"\n'
        f'prompt_file = "{tmp_path / "missing-prompt.md"}"\n'
    )

    def opening() -> Opening:
        return open_application(cwd=str(tmp_path), config_path=config, cooperative=True)

    app = MilkApp(runtime_factory=opening)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.application is not None)
        welcome = app.screen.query_one(Welcome)
        await until(pilot, lambda: "missing-prompt.md" in str(welcome.render()))
        assert "missing-prompt.md" in str(welcome.render())
