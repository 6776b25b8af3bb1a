"""The files staged for the next prompt: ``/attach``, a pasted path, ``/paste``, ``-p
--attach``.  Each file is read and checked when it is staged, so a bad one is one line
before anything is sent; the next turn takes the staged files with it, and they stay
staged when that turn fails (the prompt and its files go back together).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from milk_tui.engine.attachments import (
    MAX_ATTACHMENTS,
    AttachmentError,
    clipboard_image,
    pasted_path,
    read_attachment,
)
from milk_tui.model.attachment import Attachment, AttachmentInfo

__all__ = ["AttachmentError", "Attachments"]

OnChange = Callable[[list[AttachmentInfo]], None]


class Attachments:
    def __init__(self, cwd: str) -> None:
        self._cwd = cwd
        self._staged: list[Attachment] = []
        self._listeners: list[OnChange] = []

    @property
    def staged(self) -> list[AttachmentInfo]:
        return [a.info for a in self._staged]

    def on_change(self, listener: OnChange) -> None:
        """Call ``listener`` with the staged files whenever they change."""
        self._listeners.append(listener)

    async def attach(self, path: str) -> AttachmentInfo:
        """Read, check and stage ``path`` (relative to the session folder, ``~`` expanded).
        Raises ``AttachmentError`` (a ``ValueError``) with one line naming the file."""
        return self._stage(await asyncio.to_thread(read_attachment, path, self._cwd))

    def attach_now(self, path: str) -> AttachmentInfo:
        """``attach`` without a worker thread (print mode: nothing else runs meanwhile)."""
        return self._stage(read_attachment(path, self._cwd))

    async def paste_image(self) -> AttachmentInfo:
        """Stage the clipboard's image; ``AttachmentError`` says which tool is missing or
        that there is no image."""
        return self._stage(await asyncio.to_thread(clipboard_image))

    def pasted_path(self, text: str) -> str | None:
        """The existing file a paste names (the rule in ``engine/attachments.pasted_path``),
        or None when the paste is ordinary text."""
        return pasted_path(text, self._cwd)

    def detach(self, which: str = "") -> list[AttachmentInfo]:
        """Unstage: "" or ``all`` drops every file, a number the Nth (1-based), else the
        file of that name.  Returns what was removed; ``ValueError`` when nothing matches."""
        which = which.strip()
        if which in ("", "all"):
            gone, self._staged = self._staged, []
        else:
            idx = int(which) - 1 if which.isdigit() else -1
            gone = [a for i, a in enumerate(self._staged) if i == idx or a.info.name == which][:1]
            if not gone:
                raise ValueError(f"nothing staged matches {which!r}")
            self._staged = [a for a in self._staged if a is not gone[0]]
        if gone:
            self._changed()
        return [a.info for a in gone]

    def for_turn(self) -> tuple[Attachment, ...]:
        return tuple(self._staged)

    def sent_by(self, turn: asyncio.Task[Any], files: tuple[Attachment, ...]) -> None:
        """Done callback of the turn that took ``files``: answered, they are unstaged;
        failed or cancelled, they stay for the prompt that goes back into the box."""
        if turn.cancelled() or turn.exception() is not None or not turn.result().ok:
            return
        self.sent(files)

    def sent(self, files: tuple[Attachment, ...]) -> None:
        """The turn that took ``files`` was answered: they are no longer staged."""
        if not files:
            return
        self._staged = [a for a in self._staged if all(a is not f for f in files)]
        self._changed()

    def stage_replacing(self, a: Attachment) -> AttachmentInfo:
        """Stage ``a`` in place of a staged one of the same kind and name (a command's
        output run again)."""
        self._staged = [
            s for s in self._staged if (s.info.kind, s.info.name) != (a.info.kind, a.info.name)
        ]
        return self._stage(a)

    def _stage(self, a: Attachment) -> AttachmentInfo:
        if any(s.info.sha256 == a.info.sha256 and s.info.name == a.info.name for s in self._staged):
            raise AttachmentError(f"{a.info.name} is already attached")
        if len(self._staged) >= MAX_ATTACHMENTS:
            raise AttachmentError(
                f"{a.info.name}: at most {MAX_ATTACHMENTS} files per prompt (/detach one first)"
            )
        self._staged.append(a)
        self._changed()
        return a.info

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener(self.staged)
