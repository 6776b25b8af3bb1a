"""Direct shell (``direct_bash``): which typed lines are commands, the allow-list the user
keeps with ``/bash``, the command's PTY, and its output handed to the next prompt.

The command is the user's own, typed: it runs with the user's rights in the session's
folder and asks no agent permission.  Nothing but a typed line reaches ``recognise``: model
output and project files never start a command (docs/adr/0042-direct-shell-and-colour-modes.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from milk_tui.config.settings import MilkConfig
from milk_tui.engine.pty_child import PtyChild
from milk_tui.engine.runtime import Runtime
from milk_tui.engine.shell_line import ShellLine, shell_line
from milk_tui.facade.attachments import Attachments
from milk_tui.facade.config_keys import save_key
from milk_tui.model.attachment import Attachment, AttachmentInfo
from milk_tui.model.terminal_text import inert

__all__ = ["OUTPUT_MAX_BYTES", "DirectShell", "PtyChild", "ShellLine"]

OUTPUT_MAX_BYTES = 16 * 1024
"""The end of a command's output that goes with the next prompt: ~4k tokens, enough for a
test run's failures or a ``git status``, not a build log that crowds out the conversation."""


class DirectShell:
    def __init__(self, runtime: Runtime, attachments: Attachments) -> None:
        self._rt = runtime
        self._attachments = attachments

    @property
    def _config(self) -> MilkConfig:
        return self._rt.config

    @property
    def enabled(self) -> bool:
        return self._config.direct_bash

    @property
    def allowed(self) -> list[str]:
        return list(self._config.direct_bash_allow)

    @property
    def cwd(self) -> str:
        return self._rt.dispatcher.cwd

    def recognise(self, typed: str) -> ShellLine | None:
        """The command a typed line is, when ``direct_bash`` is on (engine/shell_line.py)."""
        return shell_line(typed, self.cwd) if self.enabled else None

    def child(
        self, line: ShellLine, cols: int, rows: int, on_output: Callable[[bytes], None]
    ) -> PtyChild:
        return PtyChild(line.command, self.cwd, cols=cols, rows=rows, on_output=on_output)

    def attach_output(self, command: str, text: str, code: int) -> AttachmentInfo:
        """Stage the end of the command's output (plain screen text, made inert) for the
        next prompt; a second run of the same command replaces the first's."""
        body = inert(text.rstrip())
        data = body.encode("utf-8")
        if len(data) > OUTPUT_MAX_BYTES:
            data = "…\n".encode() + data[-OUTPUT_MAX_BYTES:].decode("utf-8", "ignore").encode()
        data += f"\n[exit status {code}]".encode()
        info = AttachmentInfo(
            name=inert(command),
            kind="shell",
            mime="text/plain",
            size=len(data),
            sha256=hashlib.sha256(data).hexdigest(),
        )
        return self._attachments.stage_replacing(Attachment(info, data))

    async def allow(self, word: str) -> list[str]:
        word = _one_word(word)
        now = [*self.allowed, word] if word not in self.allowed else self.allowed
        await self._save("direct_bash_allow", now)
        return now

    async def deny(self, word: str) -> list[str]:
        word = _one_word(word)
        if word not in self.allowed:
            raise ValueError(f"'{word}' is not on the allow-list")
        now = [w for w in self.allowed if w != word]
        await self._save("direct_bash_allow", now)
        return now

    async def _save(self, key: str, value: object) -> None:
        await save_key(self._rt, key, value)


def _one_word(word: str) -> str:
    w = word.strip()
    if not w or len(w.split()) != 1:
        raise ValueError("give one command word, e.g. /bash allow ls")
    return w
