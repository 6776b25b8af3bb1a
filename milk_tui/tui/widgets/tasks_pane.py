"""The tasks pane: the live session's tasks, then the global ones, each with its status
badge (``○`` open, ``▶`` in progress, ``✓`` done) and the first characters of its id.

Its view is the last ``TasksChanged`` (published after every change and after ``/new`` or a
switch) or the list read when the screen starts; task text is untrusted (an agent wrote it)
and is made inert before it is drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from milk_tui.facade.errors import StorageError
from milk_tui.model import events as ev
from milk_tui.model.task import Task
from milk_tui.model.terminal_text import inert
from milk_tui.tui.ui_state import UIState

if TYPE_CHECKING:
    from milk_tui.tui.widgets.conversation import Conversation

BADGES = {"open": ("○", "dim"), "in_progress": ("▶", "green"), "done": ("✓", "dim")}
ID_SHOWN = 4
"""Characters of an id shown: enough for ``/task done`` (a 4+ prefix)."""


def render_tasks(tasks: Sequence[Task]) -> Text:
    out = Text()
    groups = (("this session", [t for t in tasks if t.scope == "session"]),
              ("global", [t for t in tasks if t.scope == "global"]))  # fmt: skip
    for i, (title, rows) in enumerate(groups):
        if i:
            out.append("\n")
        out.append(f"{title}\n", style="bold")
        if not rows:
            out.append("  (none)\n", style="dim")
        for t in rows:
            badge, style = BADGES[t.status]
            out.append(f"{badge} ", style=style)
            out.append(f"{t.id[:ID_SHOWN]} ", style="dim")
            text = inert(t.text)
            out.append(text + "\n", style="dim strike" if t.status == "done" else "")
    return out


class TasksPane(VerticalScroll):
    DEFAULT_CSS = """
    TasksPane { height: 1fr; border: round $foreground 25%; border-title-color: $primary; padding: 0 1; }
    TasksPane > #tasks-body { height: auto; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Tasks"
        self.tasks: tuple[Task, ...] = ()
        self.body = Static(render_tasks(()), id="tasks-body", markup=False)

    def compose(self) -> ComposeResult:
        yield self.body

    def read(self, tasks: Callable[[], Sequence[Task]], conv: Conversation) -> None:
        """Show the list read now (later changes arrive as ``TasksChanged``)."""
        try:
            self.show(tasks())
        except StorageError as e:
            conv.add_line("warning", f"tasks unavailable: {e}")

    def show(self, tasks: Sequence[Task]) -> None:
        self.tasks = tuple(tasks)
        open_ = sum(1 for t in tasks if t.status != "done")
        self.border_subtitle = f"{open_} open" if tasks else ""
        self.body.update(render_tasks(self.tasks))

    def handle_bus_event(self, e: ev.BusEvent) -> None:
        match e:
            case ev.TasksChanged(tasks=tasks):
                self.show(tasks)


def restore_side(screen: Widget, state: UIState) -> None:
    """The side column as the last run left it."""
    screen.set_class(not state.side_panes, "-side-hidden")
    screen.set_class(state.side_tasks, "-side-tasks")


def cycle_side(screen: Widget, state: UIState) -> None:
    """F2 cycles the side column: the panes, the tasks pane, nothing (on a narrow terminal,
    where it starts hidden: the panes, the tasks pane, hidden again).  The wide choice is
    remembered between runs."""
    if screen.has_class("-narrow"):
        if not screen.has_class("-side-forced"):
            screen.add_class("-side-forced")
            screen.remove_class("-side-tasks")
        elif not screen.has_class("-side-tasks"):
            screen.add_class("-side-tasks")
        else:
            screen.remove_class("-side-forced", "-side-tasks")
        return
    if screen.has_class("-side-hidden"):
        screen.remove_class("-side-hidden", "-side-tasks")
    elif not screen.has_class("-side-tasks"):
        screen.add_class("-side-tasks")
    else:
        screen.add_class("-side-hidden")
        screen.remove_class("-side-tasks")
    state.side_panes = not screen.has_class("-side-hidden")
    state.side_tasks = screen.has_class("-side-tasks")
    state.save()


def reveal_facts(screen: Widget, state: UIState) -> None:
    """The side column showing the panes (F3 goes into the facts pane's search)."""
    for _ in range(3):  # at most a whole cycle
        if not screen.has_class("-side-tasks") and screen.query_one("#side").display:
            return
        cycle_side(screen, state)
