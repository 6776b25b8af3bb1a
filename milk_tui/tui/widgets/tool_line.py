"""A tool call as one compact line; click (or Enter when focused) shows arguments and result."""

from __future__ import annotations

import json
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding
from textual.events import Click
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Static

from milk_tui.model.edit_preview import call_diff
from milk_tui.tui.transcript import Item
from milk_tui.tui.widgets.spinner import SPIN_S, SPINNER

SUMMARY_CHARS = 60
DETAIL_CHARS = 4000
"""Expanded view cap: tool results can be megabytes; the transcript is not a file viewer."""


def _summary(arguments: str) -> str:
    try:
        data = json.loads(arguments) if arguments else {}
    except ValueError:
        data = None
    if isinstance(data, dict):
        s = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in data.items())
    else:
        s = arguments
    s = " ".join(s.split())
    return s if len(s) <= SUMMARY_CHARS else s[: SUMMARY_CHARS - 1] + "…"


def _diff_text(diff: str) -> Text:
    """A unified diff, coloured: removed lines red, added lines green, headers dim."""
    out = Text()
    for line in diff[:DETAIL_CHARS].splitlines():
        if line.startswith(("---", "+++", "@@", "[+")):
            style = "dim"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("+"):
            style = "green"
        else:
            style = ""
        out.append("\n  " + line, style=style)
    return out


class ToolLine(Static, can_focus=True):
    DEFAULT_CSS = """
    ToolLine { height: auto; padding: 0 1; color: $text-muted; }
    ToolLine:focus { background: $boost; }
    ToolLine.-error { color: $error; }
    """
    BINDINGS = [
        Binding("enter,space", "toggle_details", "Expand", id="milk.tool.toggle", show=False)
    ]

    expanded: reactive[bool] = reactive(False)

    spin: ClassVar[bool] = True
    """False keeps a running call's spinner on its first frame (deterministic snapshots)."""

    def __init__(
        self, name: str, arguments: str, call_id: str = "", slot: str = "", *, running: bool = False
    ) -> None:
        super().__init__(markup=False)
        self.running = running
        """A live call still waiting for its result: the line shows a spinner."""
        self._frame = 0
        self._timer: Timer | None = None
        self.tool_name = name
        self.arguments = arguments
        self.call_id = call_id
        self.slot = slot
        self.result: str | None = None
        self.is_error = False
        self.item: Item | None = None
        """The transcript record this line renders; a result is written back to it."""
        self._refresh_text()

    def on_mount(self) -> None:
        if self.running and self.spin:
            self._timer = self.set_interval(SPIN_S, self._tick)

    def _tick(self) -> None:
        self._frame = (self._frame + 1) % len(SPINNER)
        self._refresh_text()

    def stop(self) -> None:
        """The call will not report back (the turn ended first): stop the spinner."""
        if self.running:
            self.running = False
            if self._timer is not None:
                self._timer.stop()
            self._refresh_text()

    def set_result(self, content: str, is_error: bool) -> None:
        self.running = False
        if self._timer is not None:
            self._timer.stop()
        self.result = content
        self.is_error = is_error
        self.set_class(is_error, "-error")
        if self.item is not None:
            self.item.detail = content
            self.item.extra["error"] = "1" if is_error else ""
        self._refresh_text()

    def watch_expanded(self) -> None:
        self._refresh_text()

    def action_toggle_details(self) -> None:
        self.expanded = not self.expanded

    def on_click(self, event: Click) -> None:
        event.stop()
        self.expanded = not self.expanded

    def _diff(self) -> str:
        try:
            args = json.loads(self.arguments) if self.arguments else {}
        except ValueError:
            return ""
        return call_diff(self.tool_name, args) if isinstance(args, dict) else ""

    def _refresh_text(self) -> None:
        mark = "▾" if self.expanded else "▸"
        t = Text(f"{mark} ⚙ {self.tool_name} ", style="bold")
        t.append(_summary(self.arguments), style="dim")
        if self.result is not None:
            status = "error" if self.is_error else "ok"
            t.append(f"  → {status} ({len(self.result)} chars)", style="italic")
        elif self.running:
            t.append(f"  {SPINNER[self._frame]} running", style="italic")
        else:
            t.append("  (no result)", style="italic")
        if self.expanded:
            diff = self._diff()
            if diff:
                t.append_text(_diff_text(diff))
            t.append("\n  arguments: " + (self.arguments[:DETAIL_CHARS] or "{}"), style="")
            if self.result is not None:
                body = self.result[:DETAIL_CHARS]
                if len(self.result) > DETAIL_CHARS:
                    body += f"\n  … ({len(self.result) - DETAIL_CHARS} more chars)"
                t.append("\n  result: " + body)
        self.update(t)
