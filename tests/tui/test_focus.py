"""Focus in the main screen: F3 lands in the facts search box, the facts pane's letter keys
act only on its table, and the focused pane and its keys are always visible."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Input

from milk_tui.tui.facts.browser import TABLE_ACTIONS, FactBrowser
from milk_tui.tui.facts.table import FactTable
from milk_tui.tui.widgets.facts_pane import FactsPane
from milk_tui.tui.widgets.prompt_input import PromptInput
from tui.conftest import make_app, settle


def test_table_actions_are_the_browsers_bindings() -> None:
    bindings = [b for b in FactBrowser.BINDINGS if isinstance(b, Binding)]
    assert len(bindings) == len(FactBrowser.BINDINGS)
    names = {b.action.split("(")[0] for b in bindings}
    assert names == TABLE_ACTIONS


async def test_f3_focuses_the_search_box_and_typing_never_changes_a_fact() -> None:
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        facts = app.facade.facts
        p = facts.remember("use uv to run python", scope="global")
        facts.pin(p.id, True)
        pane = app.main_screen.query_one(FactsPane)
        keys = app.main_screen.query_one("#keys")
        await settle(pilot, app)
        idle_border = pane.styles.border_top
        assert "Pin" not in str(keys.render())
        await pilot.press("f3")
        await pilot.pause()
        search = pane.query_one("#fact-search", Input)
        assert app.focused is search
        await pilot.press(*"use pdu")  # every letter a table command: u undo, p pin, d delete
        await settle(pilot, app)
        assert search.value == "use pdu"
        got = facts.get(p.id)
        assert got is not None and got.core and got.content == "use uv to run python"
        assert app.screen is app.main_screen  # no delete confirmation, no editor
        assert pane.styles.border_top != idle_border  # the focused pane shows it
        search.value = ""
        await pilot.press("enter")  # into the table: now the letters are commands
        await pilot.pause()
        assert isinstance(app.focused, FactTable)
        assert "Pin" in str(keys.render())  # the footer shows the table's keys
        await pilot.press("p")
        await settle(pilot, app)
        got = facts.get(p.id)
        assert got is not None and not got.core
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.focused, PromptInput)
        assert "Pin" not in str(keys.render())
        assert pane.styles.border_top == idle_border
