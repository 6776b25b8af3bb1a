"""The fact editor on a short terminal: its buttons stay on screen, its body scrolls."""

from __future__ import annotations

import pytest
from textual.widgets import Button

from milk_tui.memory.service import MemoryService
from milk_tui.testing.percept_fixtures import bulk_facts
from milk_tui.tui.facts import FactEditModal
from tui_facts.conftest import FIXED_NOW, Host

SID = "5e55104d-0000-4000-8000-000000000001"


@pytest.mark.parametrize("size", [(80, 24), (80, 20), (160, 45)])
async def test_fact_editor_buttons_are_on_screen(
    memory: MemoryService, size: tuple[int, int]
) -> None:
    bulk_facts(memory.store, 5, session_id=SID, now=FIXED_NOW)
    app = Host(memory, SID, clock=lambda: FIXED_NOW + 30)
    async with app.run_test(size=size) as pilot:
        await pilot.press("down", "e")
        await pilot.pause()
        assert isinstance(app.screen, FactEditModal)
        screen = app.screen.region
        for button in app.screen.query(Button):
            r = button.region
            assert r.height > 0 and screen.contains_region(r), (button.id, r, screen)
        await pilot.click("#cancel")
        await pilot.pause()
        assert not isinstance(app.screen, FactEditModal)
