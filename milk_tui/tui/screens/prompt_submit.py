"""What happens when the user presses Enter: a literal prompt, a slash command or a prompt
sent to the agents — and, when a turn fails, the prompt put back as it was typed."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from milk_tui.facade.errors import StorageError
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.prompt_input import PromptInput
from milk_tui.tui.widgets.status_line import StatusLine

if TYPE_CHECKING:
    from milk_tui.facade.application import Force, TurnResult
    from milk_tui.tui.screens.main import MainScreen


class PromptSubmitter:
    """Owned by the main screen; remembers the last prompt sent so a failed turn can give it
    back."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.last_prompt = ""
        self.last_force: Force | None = None

    async def run_input(self, text: str) -> None:
        screen = self.screen
        if not screen.milk.application_ready.is_set():
            # Enter in the first instants, while the agents are built: run it once they are,
            # in a worker, so that the screen keeps handling keys meanwhile.
            screen.query_one(StatusLine).set_hint("starting the agents…")
            screen.run_worker(self._when_ready(text), group="startup-input")
            return
        from milk_tui.tui.commands import literal_prompt, parse_slash, unknown_command

        box = screen.query_one(PromptInput)
        literal = literal_prompt(text)
        if literal is not None:
            self.submit_prompt(literal, typed=text)
            return
        parsed = parse_slash(text)
        if parsed is not None:
            cmd, arg = parsed
            if screen.facade.busy and not cmd.busy_safe:
                screen.query_one(StatusLine).set_hint(
                    f"{cmd.name} unavailable while the agent is responding"
                )
                return
            box.remember(text)
            take_sent(box, text)
            screen.hide_hint()
            await screen.slash.run(cmd, arg)
            return
        if word := unknown_command(text):
            screen.query_one(Conversation).add_line(
                "warning",
                f"unknown command {word} — /help lists them; start with // or a space "
                "to send a prompt that begins with /",
            )
            return
        if (line := screen.facade.shell.recognise(text)) is not None:
            from milk_tui.tui.screens.shell_flow import run_typed_command

            box.remember(text)
            take_sent(box, text)
            screen.run_worker(run_typed_command(screen, text, line), group="direct-shell")
            return
        self.submit_prompt(text)

    def cancel_pending(self) -> bool:
        """Ctrl+C before the agents are built: the Enter waiting for them is dropped (its
        text stays in the box, unsent)."""
        waiting = [
            w
            for w in self.screen.app.workers
            if w.node is self.screen and w.group == "startup-input" and not w.is_finished
        ]
        for worker in waiting:
            worker.cancel()
        if waiting:
            self.screen.query_one(StatusLine).set_hint("")
        return bool(waiting)

    async def _when_ready(self, text: str) -> None:
        await self.screen.milk.application_ready.wait()
        self.screen.query_one(StatusLine).set_hint("")
        await self.run_input(text)

    def submit_prompt(self, text: str, force: Force | None = None, typed: str = "") -> bool:
        """Send ``text``; ``typed``: how it stands in the box, if not as sent (``//…``)."""
        screen = self.screen
        a = screen.facade
        box = screen.query_one(PromptInput)
        if a.busy:
            screen.query_one(StatusLine).set_hint(
                "agent is responding — Ctrl+C cancels; your prompt is kept"
            )
            return False
        box.remember(text)
        take_sent(box, typed or text)
        self.last_prompt, self.last_force = text, force
        task = a.submit(text, force=force)
        if task is None:
            self.restore_prompt(text)
            return False
        task.add_done_callback(self.turn_done)
        # The input-history row is written once the turn has started, off the event loop:
        # a database write has no business between Enter and the request.
        screen.run_worker(self._save_input(text), group="input-history")
        return True

    def grant_retry(self) -> None:
        """Ctrl+G: grant what the last turn was refused and run it again."""
        task = self.screen.facade.grant_and_retry()
        if task is None:
            busy = self.screen.facade.busy
            hint = "agent is responding" if busy else "nothing was refused to grant"
            self.screen.query_one(StatusLine).set_hint(hint)
            return
        task.add_done_callback(self.turn_done)

    async def _save_input(self, text: str) -> None:
        try:
            await asyncio.to_thread(self.screen.facade.add_input, text)
        except StorageError as e:
            self.screen.query_one(Conversation).add_line("warning", f"input history not saved: {e}")

    def turn_done(self, task: asyncio.Task[TurnResult]) -> None:
        if task.cancelled():  # cancelled before its first step: no turn_failed comes
            self.restore_prompt(self.as_typed(self.last_prompt))
            return
        exc = task.exception()
        if exc is not None:  # the dispatcher turns failures into turn_failed; this is a bug path
            self.screen.query_one(Conversation).add_line("error", f"internal error: {exc!r}")
            self.restore_prompt(self.as_typed(self.last_prompt))

    def turn_failed(self, prompt: str | None) -> None:
        self.restore_prompt(self.as_typed(prompt or self.last_prompt))

    def as_typed(self, prompt: str) -> str:
        """The prompt as the user sent it: a one-turn ``/escalate``/``/primary`` keeps its
        command, so Enter sends it to the same agent again."""
        if self.last_force and prompt == self.last_prompt:
            return f"/{self.last_force} {prompt}"
        return prompt

    def restore_prompt(self, prompt: str) -> None:
        """Put a failed or cancelled prompt back, selected: Enter sends it again, typing
        replaces it (never glued in front of the next command).  A box the user has typed
        in meanwhile is left alone; the prompt is in the history (Up) anyway."""
        box = self.screen.query_one(PromptInput)
        if prompt and not box.text.strip():
            box.set_text_selected(prompt)


def take_sent(box: PromptInput, sent: str) -> None:
    """Empty the box of the text just sent, keeping what was typed after its Enter: the
    screen handles the submission a few loop turns after the key, and keys that came
    meanwhile are already in the box.  A box edited otherwise is left as it is."""
    if box.text.startswith(sent):
        box.set_text(box.text[len(sent) :])
