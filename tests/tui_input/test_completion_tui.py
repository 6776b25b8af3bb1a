"""Tab completion and the command pop-up in the real TUI (Pilot): commands cycle, their
words and the agents' names complete, ``@path`` completes inside the session folder only;
``/memory PATTERN`` filters, a bare ``/think`` says the state."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static
from tui.conftest import make_app, settle, type_and_send, until

from milk_tui.tui.commands import COMMANDS
from milk_tui.tui.facts import FactsScreen
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.prompt_input import PromptInput

# Every command the table holds under "/s" (a new one joins the cycle, the test follows).
S_COMMANDS = {c.name + " " for c in COMMANDS if c.name.startswith("/s")}


async def tab(pilot, box: PromptInput, key: str = "tab") -> str:  # type: ignore[no-untyped-def]
    before = box.text
    await pilot.press(key)
    await until(pilot, lambda: box.text != before, timeout=2)
    return box.text


async def test_tab_cycles_commands_sharing_a_prefix_and_shift_tab_goes_back() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        box = app.main_screen.query_one(PromptInput)
        await pilot.press(*"/s")
        assert len(S_COMMANDS) >= 3
        seen = [await tab(pilot, box) for _ in S_COMMANDS]
        assert set(seen) == S_COMMANDS, seen
        assert await tab(pilot, box) == seen[0]  # round again
        assert await tab(pilot, box, "shift+tab") == seen[-1]
        box.set_text("/mc")
        await pilot.press("tab")
        await until(pilot, lambda: box.text == "/mcp ")
        assert box.text == "/mcp "
        await pilot.press(*"en", "tab")
        await until(pilot, lambda: box.text == "/mcp enable ")
        assert box.text == "/mcp enable "


async def test_tab_completes_sub_commands_and_agent_names() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        box = app.main_screen.query_one(PromptInput)
        names = [r.name for r in app.facade.agents.rows()]
        assert names, "the demo run has agents"
        await pilot.press(*"/agent sw", "tab")
        await until(pilot, lambda: box.text == "/agent switch ")
        assert box.text == "/agent switch "
        await pilot.press("tab")
        await until(pilot, lambda: box.text != "/agent switch ")
        assert box.text.removeprefix("/agent switch ").strip() in names
        box.set_text("/think o")
        await pilot.press("tab")  # on, off: the shared "o" stays, the next Tab picks
        await until(pilot, lambda: box.text in ("/think on ", "/think off "))
        assert box.text in ("/think on ", "/think off ")


async def test_at_path_completes_inside_the_folder_and_never_out_through_a_link(
    tmp_path: Path,
) -> None:
    project, outside = tmp_path / "project", tmp_path / "outside"
    (project / "src").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_text("x")
    (project / "notes.md").write_text("n")
    (project / "src" / "main.py").write_text("m")
    (project / ".env").write_text("e")
    (project / "elsewhere").symlink_to(outside, target_is_directory=True)
    app = make_app(cwd=str(project))
    async with app.run_test(size=(80, 24)) as pilot:
        box = app.main_screen.query_one(PromptInput)
        await pilot.press(*"look at @no", "tab")
        await until(pilot, lambda: box.text == "look at @notes.md ")
        assert box.text == "look at @notes.md "
        await pilot.press(*"and @s", "tab")
        await until(pilot, lambda: box.text.endswith("@src/"))
        await pilot.press("tab")
        await until(pilot, lambda: box.text.endswith("@src/main.py "))
        assert box.text == "look at @notes.md and @src/main.py "

        box.set_text("@elsewhere/")
        await pilot.press("tab")
        await settle(pilot, app)
        assert box.text == "@elsewhere/", "Tab followed a link out of the folder"
        box.set_text("@../outside/s")  # typed by the user: allowed
        await pilot.press("tab")
        await until(pilot, lambda: box.text == "@../outside/secret.txt ")
        assert box.text == "@../outside/secret.txt "
        box.set_text("/open no")  # /open and /attach take a path without the @
        await pilot.press("tab")
        await until(pilot, lambda: box.text == "/open notes.md ")
        assert box.text == "/open notes.md "


async def test_the_command_pop_up_shows_as_many_as_fit() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("/")
        hint = app.main_screen.query_one("#hint", Static)

        def commands_listed() -> int:
            return sum(1 for line in str(hint.content).splitlines() if line.startswith("/"))

        await until(pilot, lambda: commands_listed() > 4)
        assert 4 < commands_listed() < 12, str(hint.content)
        assert str(hint.content).splitlines()[-1].endswith("more — Tab cycles through them")
        assert hint.size.height <= 12
        first = str(hint.content).splitlines()[0]
        assert first.startswith("/escalate [fresh] [prompt]  — pin the escalation agent"), first
        assert len(first) <= 76 and first.endswith("…")  # one row each, cut to the width
        assert app.main_screen.query_one(Conversation).size.height >= 6


async def test_memory_pattern_filters_and_bare_think_shows_the_state() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "/learn the lexer lives in src/lex.rs")
        await type_and_send(pilot, "/learn tests run with cargo nextest")
        shown = app.main_screen.app.ui_state.show_thinking
        await type_and_send(pilot, "/think")
        assert app.ui_state.show_thinking == shown, "a bare /think changed the setting"
        last = app.main_screen.query_one(Conversation).items[-1].text
        assert last.startswith(f"thinking is {'shown' if shown else 'hidden'}"), last

        await type_and_send(pilot, "/memory lexer")
        await until(pilot, lambda: isinstance(app.screen, FactsScreen))
        screen = app.screen
        assert isinstance(screen, FactsScreen)
        await until(pilot, lambda: screen.browser.window.total == 1)
        assert screen.browser.window.total == 1
        row = screen.browser.window.row(0)
        assert row is not None and "lexer" in row.content
