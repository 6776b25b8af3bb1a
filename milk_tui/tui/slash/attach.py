"""Files for the next prompt: /attach, /paste, /detach — and a pasted file path, which
attaches the file instead of inserting its name (the rule: facade/attachments.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from milk_tui.tui.slash.base import SlashGroup
from milk_tui.tui.widgets.attachment_chips import StagedAttachments
from milk_tui.tui.widgets.prompt_input import PromptInput

if TYPE_CHECKING:
    from milk_tui.model.attachment import AttachmentInfo
    from milk_tui.tui.screens.main import MainScreen


class AttachCommands(SlashGroup):
    async def cmd_attach(self, arg: str) -> None:
        if not arg.strip():
            raise ValueError("usage: /attach PATH (relative to the session folder; ~ works)")
        self._attached(await self.facade.attachments.attach(arg.strip()))

    async def cmd_paste(self, arg: str) -> None:
        self._attached(await self.facade.attachments.paste_image())

    async def cmd_detach(self, arg: str) -> None:
        gone = self.facade.attachments.detach(arg)
        self.say("detached " + ", ".join(i.name for i in gone) if gone else "nothing attached")

    def _attached(self, info: AttachmentInfo) -> None:
        self.say(f"attached {info.chip()} — it goes with your next prompt")

    def on_paste(self, text: str) -> bool:
        """The prompt's paste hook: a path to an existing file is attached (True: the text
        stays out of the box); an empty paste asks the clipboard for an image."""
        if text.strip():
            path = self.facade.attachments.pasted_path(text)
            if path is None:
                return False
            self.screen.run_worker(self._run(self.cmd_attach, path), group="attach")
            return True
        if text == "":
            self.screen.run_worker(self._run(self.cmd_paste, ""), group="attach")
            return True
        return False

    async def _run(self, cmd: Callable[[str], Awaitable[None]], arg: str) -> None:
        try:
            await cmd(arg)
        except ValueError as e:
            self.say(str(e), "error")


def install(screen: MainScreen) -> None:
    """Show the staged files above the prompt and let the prompt hand pastes over."""
    staged = screen.query_one(StagedAttachments)
    screen.facade.attachments.on_change(staged.show)
    staged.show(screen.facade.attachments.staged)
    screen.query_one(PromptInput).paste_hook = AttachCommands(screen).on_paste
