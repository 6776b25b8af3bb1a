"""The question before the escalation agent uses a folder's own Claude settings: names each
file and lists what it allows; "Trust" passes them on until a file changes, anything else
(the default focus, Escape, Ctrl+C) leaves them out.  No letter answers it: a prompt typed
while it opens never trusts a file by accident
(docs/adr/0034-project-files-never-widen-permissions.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Button, Static

from milk_tui.model.terminal_text import inert
from milk_tui.tui.screens.milk_modal import MilkModal

if TYPE_CHECKING:
    from milk_tui.facade.project_trust import ProjectFile


def describe_files(files: tuple[ProjectFile, ...]) -> Text:
    t = Text()
    t.append(
        "This folder ships settings for the Claude CLI. They are ignored unless you trust "
        "them (asked again when a file changes):\n"
    )
    for f in files:
        t.append(f"\n{inert(f.path)}\n", style="bold")
        for item in f.allows:
            t.append(f"  • {inert(item)}\n", style="yellow")
    t.rstrip()
    return t


class ProjectTrustModal(MilkModal[bool]):
    DEFAULT_CSS = """
    ProjectTrustModal .milk-modal { width: 100; border: thick $warning; }
    ProjectTrustModal .trust-body { height: auto; max-height: 20; }
    """
    BINDINGS = [Binding("escape", "answer(False)", "Ignore", id="milk.project_trust.ignore")]

    def __init__(self, files: tuple[ProjectFile, ...]) -> None:
        super().__init__("Trust this folder's Claude settings?")
        self.files = files

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(classes="trust-body"):
            yield Static(describe_files(self.files), markup=False)

    def compose_buttons(self) -> ComposeResult:
        yield Button("Ignore them", id="ignore", variant="primary")
        yield Button("Trust these files", id="trust", variant="error")

    def on_mount(self) -> None:
        self.query_one("#ignore", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "trust")

    def action_answer(self, trust: bool) -> None:
        self.dismiss(trust)
