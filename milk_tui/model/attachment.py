"""Files handed to an agent with a prompt: what is stored with the user turn, and the text
every wire format puts beside the prompt.

``AttachmentInfo`` is what a session keeps (name, kind, size, sha256, the source path): no
bytes, so a screenshot does not bloat the database (docs/adr/0027-attachments.md).
``Attachment`` is a file read for one turn: the info plus its bytes.  Reading and checking a
file lives in ``engine/attachments.py``; the wire shapes in each ``agents/*_wire`` module.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Literal

AttachmentKind = Literal["image", "text", "shell"]
"""``shell``: the output of a command the user ran in the shell pane (``direct_bash``); its
``name`` is the command line."""


@dataclass(frozen=True, slots=True)
class AttachmentInfo:
    name: str
    """The file's base name, as the agent and the chip show it."""
    kind: AttachmentKind
    mime: str
    """``image/png``, ``image/jpeg``, ``image/gif``, ``image/webp`` or ``text/plain``."""
    size: int
    """Bytes."""
    sha256: str
    path: str = ""
    """Absolute source path when it came from a file ("" for a clipboard image)."""

    def chip(self) -> str:
        """``name · png · 12 KB``: the label of a chip on the user turn."""
        sub = self.mime.split("/", 1)[-1] if self.kind == "image" else self.kind
        return f"{self.name} · {sub} · {human_size(self.size)}"

    def placeholder(self) -> str:
        """One line standing for the file in later turns' history."""
        if self.kind == "shell":
            return f"[shell output attached: $ {self.name} ({human_size(self.size)})]"
        return f"[attached {self.kind}: {self.name} ({self.mime}, {human_size(self.size)})]"


@dataclass(frozen=True, slots=True)
class Attachment:
    info: AttachmentInfo
    data: bytes = field(repr=False)

    @property
    def is_image(self) -> bool:
        return self.info.kind == "image"

    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    def data_url(self) -> str:
        return f"data:{self.info.mime};base64,{self.base64()}"

    def fenced(self) -> str:
        """A text file as the agent reads it: its name, then its content in a fence long
        enough that a fence inside the file cannot close it."""
        text = self.data.decode("utf-8")
        ticks = "```"
        while ticks in text:
            ticks += "`"
        head = f"{self.info.name}:"
        if self.info.kind == "shell":
            head = f"I ran this in the shell: $ {self.info.name}\nIts output (the end of it):"
        return f"{head}\n{ticks}\n{text.rstrip(chr(10))}\n{ticks}"


def prompt_with_files(prompt: str, attachments: tuple[Attachment, ...], *, images: bool) -> str:
    """The prompt text with each text file appended as a fenced block; with ``images``
    false (an agent that cannot see them, or a wire with no image part) each image is a
    placeholder line instead, so the agent knows one was attached."""
    parts = [prompt] if prompt else []
    for a in attachments:
        if not a.is_image:
            parts.append(a.fenced())
        elif not images:
            parts.append(a.info.placeholder() + " — not shown: this agent does not take images")
    return "\n\n".join(parts)


def prompt_parts(
    prompt: str, attachments: tuple[Attachment, ...], *, images: bool
) -> tuple[str, list[Attachment]]:
    """What every wire format sends: the prompt text (``prompt_with_files``) and the images
    to send as the wire's own image parts (none when the agent takes no images)."""
    text = prompt_with_files(prompt, attachments, images=images)
    return text, [a for a in attachments if a.is_image] if images else []


def history_text(content: str, infos: list[AttachmentInfo]) -> str:
    """A recorded user turn as later turns' history carries it: the prompt, then one
    placeholder line per attachment (the contents went with their own turn only)."""
    if not infos:
        return content
    return "\n".join([content, *(i.placeholder() for i in infos)])


def human_size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.0f} KB"
    return f"{n / (1024 * 1024):.1f} MB"
