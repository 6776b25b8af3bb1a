"""The one-key question before a recognised command that is not on the allow-list runs.

Enter runs it, ``n`` sends the line to the agent as a prompt (the recognition may be
wrong), Esc or Ctrl+C cancels.  Typing cannot answer it: ``y`` is not a key that runs (a
word typed without looking — "yes", "you" — would start with it, and a terminal does not
always deliver a typed word in one read), and any other printable key, or ``n`` with more
keys in the same burst, means the user is typing: nothing runs and the keys go back into
the prompt box.  Enter is never the first key of typed text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from textual import events
from textual.app import ComposeResult
from textual.widgets import Static

from milk_tui.model.terminal_text import inert
from milk_tui.tui.screens.milk_modal import MilkModal

Answer = Literal["run", "agent", "cancel"] | str
"""``run``, ``agent``, ``cancel``, or ``typed:TEXT`` (the keys typed into it)."""
_KEYS = {"enter": "run", "n": "agent", "escape": "cancel", "ctrl+c": "cancel"}


class ShellConfirm(MilkModal[str]):
    DEFAULT_CSS = """
    ShellConfirm .milk-modal { border: round $warning; }
    ShellConfirm #command { text-style: bold; margin-bottom: 1; }
    ShellConfirm .hint { color: $text-muted; }
    ShellConfirm .buttons { display: none; }
    """

    def __init__(self, command: str) -> None:
        super().__init__("run in the shell?")
        self.command = command
        self._keys: list[events.Key] = []
        self._answered = False
        self.late_text: Callable[[str], None] | None = None
        """Where text typed after the answer goes (the prompt box) while the question is
        still closing: keys of the same typed word must not be lost."""

    def compose_body(self) -> ComposeResult:
        yield Static(f"$ {inert(self.command)}", markup=False, classes="body", id="command")
        yield Static(
            "Enter runs it · n sends it to the agent · Esc cancels\n"
            "/bash allow WORD runs a first word without asking",
            markup=False,
            classes="hint",
        )

    def compose_buttons(self) -> ComposeResult:
        return iter(())

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        if self._answered:
            if event.is_printable and event.character and self.late_text is not None:
                self.late_text(event.character)
            return
        self._keys.append(event)
        if len(self._keys) == 1:
            # decide once the keys already queued are in: one key alone is an answer
            self.call_after_refresh(self._decide)

    def _decide(self) -> None:
        keys, self._keys = self._keys, []
        if len(keys) == 1 and keys[0].key in _KEYS:
            self._answered = True
            self.dismiss(_KEYS[keys[0].key])
            return
        typed = "".join(k.character or "" for k in keys if k.is_printable)
        if len(keys) == 1 and not typed:
            return  # a lone arrow or function key answers nothing
        self._answered = True
        self.dismiss("typed:" + typed)
