"""Layouts a new user meets first, at 80×24 and 160×45: every modal button on screen, the
status line's cost, the side panes with their borders, and where focus is."""

from __future__ import annotations

from milk_tui.tui.facts import FactEditModal
from milk_tui.tui.screens.permission_modal import PermissionModal
from tui.snapshot_base import SMALL, SnapshotCase, on_screen, press, publish, send
from tui.test_snapshots_screens import EDIT

WIDE = (160, 45)
THREE_TURNS = send("what is a monad?", "remember that I prefer tabs", "the parser is hard")


class TestFirstHour(SnapshotCase):
    def test_fact_editor_80x24(self) -> None:
        assert self.shot(press("f6", "a"), on_screen(FactEditModal), size=SMALL)

    def test_permission_modal_with_a_diff_80x24(self) -> None:
        assert self.shot(publish(EDIT), on_screen(PermissionModal), size=SMALL)

    def test_escalation_cost_80x24(self) -> None:
        assert self.shot(send("/escalate plan the migration of the config loader"), size=SMALL)

    def test_side_panes_160x45(self) -> None:
        assert self.shot(THREE_TURNS, size=WIDE)

    def test_facts_search_focused_by_f3_160x45(self) -> None:
        assert self.shot(THREE_TURNS, press("f3", *"tabs"), size=WIDE)

    def test_facts_table_focused_80x24(self) -> None:
        assert self.shot(THREE_TURNS, press("f3", "enter"), size=SMALL)
