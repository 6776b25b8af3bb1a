"""Snapshots of the fact browser on its own host app (SVGs in snapshots/tui_facts/;
the rules that keep them stable are in ``tests/tui/snapshot_base.py``)."""

from __future__ import annotations

from tui.snapshot_base import SMALL, SnapshotCase, on_screen, press

from milk_tui.memory.service import MemoryService
from milk_tui.testing.percept_fixtures import bulk_facts
from milk_tui.tui.facts import FactEditModal
from milk_tui.tui.screens.confirm_modal import ConfirmModal
from tui_facts.conftest import FIXED_NOW, Host

SNAP_SESSION = "5e55104d-0000-4000-8000-000000000001"
"""A fixed id: the edit modal shows the producing session."""
BROWSER = (120, 32)


def host(memory: MemoryService, facts: int = 400, *, compact: bool = False) -> Host:
    if facts:
        bulk_facts(memory.store, facts, session_id=SNAP_SESSION, now=FIXED_NOW)
    return Host(memory, SNAP_SESSION, compact=compact, clock=lambda: FIXED_NOW + 30)


class TestFactBrowser(SnapshotCase):
    def test_empty(self, memory: MemoryService) -> None:
        assert self.shot(app=host(memory, 0), size=BROWSER)

    def test_10k_facts(self, memory: MemoryService) -> None:
        assert self.shot(app=host(memory, 10_000), size=BROWSER)

    def test_filter_active(self, memory: MemoryService) -> None:
        search = press("b", "slash", *"python", "space", *"tabs", "enter")
        assert self.shot(search, app=host(memory), size=BROWSER)

    def test_compact_pane(self, memory: MemoryService) -> None:
        assert self.shot(app=host(memory, compact=True), size=(44, 20))


class TestFactModals(SnapshotCase):
    def test_edit_modal(self, memory: MemoryService) -> None:
        assert self.shot(
            press("down", "down", "e"), on_screen(FactEditModal), app=host(memory), size=BROWSER
        )

    def test_edit_modal_80x24(self, memory: MemoryService) -> None:
        assert self.shot(
            press("down", "down", "e"), on_screen(FactEditModal), app=host(memory), size=SMALL
        )

    def test_add_modal_with_errors(self, memory: MemoryService) -> None:
        assert self.shot(
            press("a"), on_screen(FactEditModal), press("ctrl+s"), app=host(memory), size=BROWSER
        )

    def test_confirm_delete(self, memory: MemoryService) -> None:
        assert self.shot(
            press("down", "d"), on_screen(ConfirmModal), app=host(memory), size=BROWSER
        )
