"""The direct-shell pane: the user's command on a PTY, drawn by a small emulator.

Every key goes to the child while it runs (Ctrl+C interrupts its foreground process
group); once it has exited, Enter or Esc closes the pane and its output is staged for the
next prompt (a chip above the prompt says so; ``/detach`` drops it).  PgUp/PgDn scroll back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen

from milk_tui.model.terminal_text import inert
from milk_tui.tui.widgets.terminal_view import TerminalView

if TYPE_CHECKING:
    from milk_tui.facade.shell import DirectShell, PtyChild, ShellLine

SPECIAL_KEYS = {
    "enter": b"\r", "tab": b"\t", "backspace": b"\x7f", "escape": b"\x1b",
    "up": b"\x1b[A", "down": b"\x1b[B", "right": b"\x1b[C", "left": b"\x1b[D",
    "home": b"\x1b[H", "end": b"\x1b[F", "delete": b"\x1b[3~",
}  # fmt: skip


class ShellScreen(ModalScreen[str]):
    """Dismisses with the output's plain text once the command has exited."""

    DEFAULT_CSS = """
    ShellScreen { align: center middle; }
    ShellScreen #shell-box { width: 100%; height: 100%; border: round $accent;
                             background: $background; border-title-color: $text;
                             border-subtitle-color: $text-muted; }
    """

    def __init__(self, shell: DirectShell, line: ShellLine) -> None:
        super().__init__()
        self.shell = shell
        self.line = line
        self.child: PtyChild | None = None
        self.exit_code: int | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="shell-box") as box:
            box.border_title = Text(f"$ {inert(self.line.command)}")  # never markup
            box.border_subtitle = self._status()
            yield TerminalView(id="term")

    def _status(self) -> str:
        if self.exit_code is None:
            return "running · Ctrl+C interrupts"
        return f"exit {self.exit_code} · Enter closes · the output goes with your next prompt"

    async def on_mount(self) -> None:
        self.call_after_refresh(self._start)

    def _start(self) -> None:
        term = self.query_one(TerminalView)
        cols, rows = max(term.size.width, 20), max(term.size.height, 5)
        term.resize_to(cols, rows)
        self.child = self.shell.child(self.line, cols, rows, term.feed)
        try:
            self.child.start()
        except OSError as e:
            term.feed(f"cannot run: {e.strerror or e}\r\n".encode())
            self._exited(127)
            return
        self.run_worker(self._wait(), group="shell-child")

    async def _wait(self) -> None:
        assert self.child is not None
        self._exited(await self.child.wait())

    def _exited(self, code: int) -> None:
        self.exit_code = code
        self.query_one("#shell-box").border_subtitle = self._status()
        self.query_one(TerminalView).refresh()

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        term = self.query_one(TerminalView)
        term.resize_to(term.size.width, term.size.height)
        if self.child is not None:
            self.child.resize(term.size.width, term.size.height)

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        term = self.query_one(TerminalView)
        if event.key in ("pageup", "pagedown"):
            term.page(1 if event.key == "pageup" else -1)
            return
        if self.exit_code is not None:
            if event.key in ("enter", "escape", "ctrl+c", "q"):
                self.dismiss(term.text())
            return
        if self.child is None:
            return
        if event.key in SPECIAL_KEYS:
            self.child.write(SPECIAL_KEYS[event.key])
        elif event.key.startswith("ctrl+") and len(event.key) == 6 and event.key[5].isalpha():
            self.child.write(bytes([ord(event.key[5]) - 96]))
        elif event.character:
            self.child.write(event.character.encode("utf-8"))

    def ctrl_c(self) -> None:
        """Ctrl+C (the app's key, routed here): interrupt the child; once it has exited,
        close the pane."""
        if self.exit_code is not None:
            self.dismiss(self.query_one(TerminalView).text())
        elif self.child is not None:
            self.child.interrupt()

    def on_unmount(self) -> None:
        if self.child is not None and self.exit_code is None:
            self.child.kill()
