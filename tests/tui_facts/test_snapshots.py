"""Snapshot of the fact browser with the edit modal open (issue 5, tests)."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import TextArea

from milk_tui.memory.service import MemoryService
from milk_tui.testing.percept_fixtures import bulk_facts
from tui_facts.conftest import FIXED_NOW, Host

SNAP_SESSION = "5e55104d-0000-4000-8000-000000000001"
"""A fixed id: the modal shows the producing session, and a random uuid would drift."""


def _app(memory: MemoryService, compact: bool = False) -> Host:
    bulk_facts(memory.store, 400, session_id=SNAP_SESSION, now=FIXED_NOW)
    return Host(memory, SNAP_SESSION, compact=compact, clock=lambda: FIXED_NOW + 30)


async def _open_editor(pilot: Pilot) -> None:
    await pilot.press("down", "down", "e")
    await pilot.pause()
    pilot.app.screen.query_one(TextArea).cursor_blink = False
    await pilot.pause()


def test_fact_browser_with_edit_modal(snap_compare, memory: MemoryService) -> None:
    assert snap_compare(_app(memory), terminal_size=(120, 32), run_before=_open_editor)


def test_fact_browser_compact_pane(snap_compare, memory: MemoryService) -> None:
    assert snap_compare(_app(memory, compact=True), terminal_size=(44, 20))
