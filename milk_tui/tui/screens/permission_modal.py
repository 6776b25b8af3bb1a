"""A tool permission question from either agent: Yes, Always for this folder, or No with an
optional reason for the model.  Keys y / a / n; Escape is No.

The body shows what the call would do: the command (``bash``), the method and URL (HTTP
tools), a coloured unified diff (file writes and edits, computed by the engine), otherwise
the arguments.  For the Claude CLI, "Always" stores the CLI's own rule (shown) in the
folder's ``.claude/settings.local.json``.
"""

from __future__ import annotations

import json
from typing import NamedTuple

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Button, Input, Static

from milk_tui.model.events import PermissionRequested
from milk_tui.tui.screens.milk_modal import MilkModal

INPUT_PREVIEW_CHARS = 1500
PREVIEW_LINES = 60
"""Diff lines shown; the rest is counted (the modal must fit the screen)."""


class PermissionChoice(NamedTuple):
    allow: bool
    always: bool = False
    reason: str = ""


DENY = PermissionChoice(False)


def describe(request: PermissionRequested) -> Text:
    """What the call would do, styled for the modal."""
    args = request.tool_input
    t = Text()
    command = args.get("command")
    url = args.get("url")
    if request.preview:
        lines = request.preview.splitlines()
        for line in lines[:PREVIEW_LINES]:
            style = (
                "bold"
                if line.startswith(("---", "+++"))
                else "green"
                if line.startswith("+")
                else "red"
                if line.startswith("-")
                else "cyan"
                if line.startswith("@@")
                else "dim"
            )
            t.append(line + "\n", style=style)
        if len(lines) > PREVIEW_LINES:
            t.append(f"[+{len(lines) - PREVIEW_LINES} more lines]\n", style="dim")
    elif isinstance(command, str):
        t.append("$ ", style="dim")
        t.append(command + "\n", style="bold")
    elif isinstance(url, str):
        t.append(f"{str(args.get('method') or 'GET').upper()} ", style="bold")
        t.append(url + "\n", style="underline")
    else:
        body = json.dumps(args, indent=2, ensure_ascii=False)
        if len(body) > INPUT_PREVIEW_CHARS:
            body = body[:INPUT_PREVIEW_CHARS] + "\n…"
        t.append(body + "\n", style="dim")
    if request.outside_paths:
        t.append("outside the working folder: ", style="bold yellow")
        t.append(", ".join(request.outside_paths))
    t.rstrip()
    if request.always_rules:
        t.append("\nAlways stores ", style="dim")
        t.append(", ".join(request.always_rules), style="bold")
        t.append(" in .claude/settings.local.json", style="dim")
    return t


class PermissionModal(MilkModal[PermissionChoice]):
    DEFAULT_CSS = """
    PermissionModal .milk-modal { width: 100; border: thick $warning; }
    PermissionModal .perm-body { height: auto; max-height: 24; }
    PermissionModal Input { margin-top: 1; }
    PermissionModal .perm-keys { color: $text-muted; }
    """
    AUTO_FOCUS = "#yes"
    BINDINGS = [
        Binding("y", "answer('yes')", "Yes", id="milk.permission.allow"),
        Binding("a", "answer('always')", "Always", id="milk.permission.always"),
        Binding("n,escape", "answer('no')", "No", id="milk.permission.deny"),
    ]

    def __init__(self, request: PermissionRequested) -> None:
        super().__init__(f"{request.agent_name} wants to use {request.tool_name}")
        self.request = request

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(classes="perm-body"):
            yield Static(describe(self.request), markup=False)
        yield Input(placeholder="reason for No, told to the model (optional)", id="reason")
        yield Static("y yes · a always for this folder · n or Esc no", classes="perm-keys")

    def compose_buttons(self) -> ComposeResult:
        yield Button("Yes", id="yes", variant="success")
        yield Button("Always for this folder", id="always", variant="primary")
        yield Button("No", id="no", variant="error")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(event.button.id or "no")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_answer("no")

    def action_answer(self, choice: str) -> None:
        if choice == "yes":
            self.dismiss(PermissionChoice(True))
        elif choice == "always":
            self.dismiss(PermissionChoice(True, always=True))
        else:
            self.dismiss(PermissionChoice(False, reason=self.query_one(Input).value.strip()))
