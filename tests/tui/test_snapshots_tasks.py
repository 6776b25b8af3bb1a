"""The tasks pane at 80×24 (F2 twice: the narrow column shows it) and 160×45 (F2 once), with
a session's tasks in each state, a mirrored Claude item, a global task and hostile text."""

from __future__ import annotations

from milk_tui.model.task import Task
from tui.snapshot_base import SMALL, SnapshotCase, ev, press, publish, send

WIDE = (160, 45)
TASKS = ev.TasksChanged(
    tasks=(
        Task("k3v9x2ab", "read the config loader", "done", "session", "s"),
        Task("p7q2m4cd", "split the parser into tokens and tree", "in_progress", "session", "s"),
        Task("z8w1n5ef", "run the tests \x1b[2J\x1b]52;c;aGk=\x07with colour", "open", "session",
             "s", origin="claude"),
        Task("a2b4c6gh", "keep the changelog short", "open", "global"),
    )
)  # fmt: skip
TURN = send("plan the parser refactor")


class TestTasksPane(SnapshotCase):
    def test_tasks_pane_80x24(self) -> None:
        assert self.shot(TURN, publish(TASKS), press("f2", "f2"), size=SMALL)

    def test_tasks_pane_160x45(self) -> None:
        assert self.shot(TURN, publish(TASKS), press("f2"), size=WIDE)
