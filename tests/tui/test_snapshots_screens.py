"""Snapshots of the modals and screens the main screen opens, and of its layouts
(SVGs in snapshots/tui/test_snapshots_screens/; rules in ``snapshot_base.py``)."""

from __future__ import annotations

from typing import Any

from textual.command import CommandPalette
from textual.widgets import OptionList

from milk_tui.tui.facts import FactEditModal
from milk_tui.tui.screens.confirm_modal import ConfirmModal
from milk_tui.tui.screens.permission_modal import PermissionModal
from tui.snapshot_base import LARGE, SMALL, SnapshotCase, ev, on_screen, press, publish, send, until

PERMISSION = ev.PermissionRequested(
    request_id="perm-1",
    agent_name="demo-claude",
    tool_name="Bash",
    tool_input={"command": "rm -rf build/ && make", "description": "clean and rebuild"},
)

EDIT = ev.PermissionRequested(
    request_id="perm-2",
    agent_name="llama",
    tool_name="edit_file",
    tool_input={"path": "app.py", "old_string": "return 1", "new_string": "return 2"},
    effect="write",
    preview="\n".join(
        [
            "--- app.py",
            "+++ app.py",
            "@@ -1,7 +1,7 @@",
            " import os",
            " ",
            " def answer():",
            "-    return 1",
            "+    return 2",
            " ",
            " ",
            " print(answer())",
        ]
    ),
)
BASH = ev.PermissionRequested(
    request_id="perm-3",
    agent_name="llama",
    tool_name="bash",
    tool_input={"command": "pytest -q tests/ && git status", "timeout_seconds": 120},
    effect="run",
    grant="bash=pytest -q tests/ && git status",  # a chain: "Always" offers the exact command
    grant_all="bash",
)


def palette_listed(app: Any) -> bool:
    return (
        isinstance(app.screen, CommandPalette) and app.screen.query_one(OptionList).option_count > 0
    )


class TestModals(SnapshotCase):
    def test_permission_modal(self) -> None:
        assert self.shot(publish(PERMISSION), on_screen(PermissionModal))

    def test_permission_modal_with_a_diff(self) -> None:
        assert self.shot(publish(EDIT), on_screen(PermissionModal))

    def test_permission_modal_with_a_bash_command(self) -> None:
        assert self.shot(publish(BASH), on_screen(PermissionModal))

    def test_context_view_after_a_handoff(self) -> None:
        assert self.shot(send("/escalate fix the flaky test"), press("f4"))

    def test_context_view_before_any_handoff(self) -> None:
        assert self.shot(press("f4"), size=SMALL)

    def test_help(self) -> None:
        assert self.shot(press("f1"))

    def test_help_light(self) -> None:
        assert self.shot(press("f1"), theme="milk-light")

    def test_help_80x24(self) -> None:
        assert self.shot(press("f1"), size=SMALL)

    # The bare palette is not shot: Textual lists the hits of its providers (its own and
    # ours) in the order they arrive, which varies with scheduling.  A query ranks them.

    def test_command_palette_search(self) -> None:
        assert self.shot(press("ctrl+p"), until(palette_listed), press(*"esc"))

    def test_command_palette_search_80x24(self) -> None:
        assert self.shot(press("ctrl+p"), until(palette_listed), press(*"toggle"), size=SMALL)

    def test_history_search(self) -> None:
        assert self.shot(send("what is a monad?", "fix the build"), press("ctrl+r"))

    def test_forget_confirmation(self) -> None:
        assert self.shot(
            send("/learn the build server is called hopper", "/forget hopper"),
            on_screen(ConfirmModal),
        )


class TestScreens(SnapshotCase):
    def test_sessions(self) -> None:
        assert self.shot(
            send("what is a monad?", "/new other work", "the parser is hard"), press("f7")
        )

    def test_sessions_rename_prompt(self) -> None:
        assert self.shot(send("what is a monad?"), press("f7", "r"))

    def test_facts_screen_empty(self) -> None:
        assert self.shot(press("f6"))

    def test_facts_screen_with_facts(self) -> None:
        assert self.shot(
            send("remember that I prefer tabs", "/learn the build server is called hopper"),
            press("f6"),
        )

    def test_facts_screen_add_modal_light(self) -> None:
        assert self.shot(press("f6", "a"), on_screen(FactEditModal), theme="milk-light")


THREE_TURNS = send("what is a monad?", "remember that I prefer tabs", "the parser is hard")


class TestLayouts(SnapshotCase):
    def test_main_200x50(self) -> None:
        assert self.shot(THREE_TURNS, size=LARGE)

    def test_main_80x24_after_turns(self) -> None:
        assert self.shot(THREE_TURNS, size=SMALL)

    def test_main_80x24_side_panes_forced(self) -> None:
        assert self.shot(THREE_TURNS, press("f2"), size=SMALL)

    def test_side_panes_hidden(self) -> None:
        assert self.shot(THREE_TURNS, press("f2", "f2"))  # the tasks pane, then nothing

    def test_main_200x50_light(self) -> None:
        assert self.shot(THREE_TURNS, size=LARGE, theme="milk-light")
