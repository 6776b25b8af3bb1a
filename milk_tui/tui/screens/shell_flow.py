"""A typed line that is a shell command (``direct_bash``): ask when it must, run it in the
shell pane, stage its output for the next prompt and say so in the conversation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from milk_tui.model.terminal_text import inert
from milk_tui.tui.screens.shell_confirm import ShellConfirm
from milk_tui.tui.screens.shell_screen import ShellScreen
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.prompt_input import PromptInput
from milk_tui.tui.widgets.status_line import StatusLine

if TYPE_CHECKING:
    from milk_tui.facade.shell import ShellLine
    from milk_tui.tui.screens.main import MainScreen


class TypedAhead:
    """Keys typed into the question, put back into the prompt box in the order typed.

    The question ends on the keys it had when it decided; keys of the same burst still
    queued for it arrive after (``add``), and keys the app delivers once the question is
    gone go straight to the box, after all of those.  So the question's keys go at the
    start of the box, each late one right after them, and nothing typed is overwritten."""

    def __init__(self) -> None:
        self._early: list[str] = []
        self._box: PromptInput | None = None
        self._at = 0

    def add(self, text: str) -> None:
        if self._box is None:
            self._early.append(text)
        else:
            self._put(text)

    def attach(self, box: PromptInput, first: str) -> None:
        self._box = box
        self._put(first + "".join(self._early))
        self._early.clear()

    def _put(self, text: str) -> None:
        box = self._box
        if box is None or not text:
            return
        box.insert(text, location=(0, self._at))
        self._at += len(text)
        box.move_cursor(box.document.end)


async def run_typed_command(screen: MainScreen, typed: str, line: ShellLine) -> None:
    """Run in a worker (it waits for the confirm and the pane)."""
    shell = screen.facade.shell
    box = screen.query_one(PromptInput)
    if not line.runs_at_once(shell.allowed):
        confirm = ShellConfirm(line.command)
        ahead = TypedAhead()
        confirm.late_text = ahead.add
        answer = await screen.app.push_screen_wait(confirm) or "cancel"
        if answer == "agent":
            screen.submitter.submit_prompt(typed)
            return
        if answer != "run":
            typed_keys = answer.removeprefix("typed:") if answer.startswith("typed:") else ""
            if typed_keys:
                ahead.attach(box, typed_keys)
            else:
                box.set_text(typed)
            screen.query_one(StatusLine).set_hint(
                "not run — the question takes one key (Enter runs, n asks the agent, Esc "
                "cancels); the command is in the history (Up)"
                if typed_keys
                else "not run"
            )
            return
    pane = ShellScreen(shell, line)
    output = await screen.app.push_screen_wait(pane)
    code = pane.exit_code if pane.exit_code is not None else -1
    try:
        info = shell.attach_output(line.command, output or "", code)
    except ValueError as e:  # too many staged files
        screen.query_one(Conversation).add_line("warning", f"output not attached: {e}")
        return
    screen.query_one(Conversation).add_line(
        "notice",
        f"$ {inert(line.command)} — exit {code}; its output ({info.size} bytes) goes with "
        "your next prompt (/detach drops it)",
    )
