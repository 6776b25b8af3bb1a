"""Attachment chips: one small label per file (kind mark, name, type, size), on a user turn
and on the line above the prompt that lists what the next prompt will take along."""

from __future__ import annotations

import json

from rich.text import Text
from textual.widgets import Static

from milk_tui.model.attachment import AttachmentInfo
from milk_tui.model.terminal_text import inert

CHIP_STYLE = "bold reverse"
MARKS = {"image": "▣", "text": "≡", "shell": "$"}


def chip_labels(infos: list[AttachmentInfo]) -> list[str]:
    # a file name may hold terminal controls: shown inert, like every other text
    return [inert(f"{MARKS.get(i.kind, '•')} {i.chip()}") for i in infos]


def chips_text(labels: list[str], *, numbered: bool = False) -> Text:
    """The chips on one line, separated by a space (numbered for ``/detach N``)."""
    t = Text()
    for n, label in enumerate(labels, start=1):
        if n > 1:
            t.append(" ")
        t.append(f" {n}: {label} " if numbered else f" {label} ", style=CHIP_STYLE)
    return t


def encode_chips(infos: list[AttachmentInfo]) -> str:
    """Chip labels for a transcript item's ``extra`` (string values only)."""
    return json.dumps(chip_labels(infos), ensure_ascii=False) if infos else ""


def decode_chips(raw: str) -> list[str]:
    if not raw:
        return []
    try:
        labels = json.loads(raw)
    except ValueError:
        return []
    return [str(x) for x in labels] if isinstance(labels, list) else []


class StagedAttachments(Static):
    """The files staged for the next prompt, above the prompt; hidden when there are none."""

    DEFAULT_CSS = """
    StagedAttachments { height: auto; padding: 0 1; display: none; color: $text-muted; }
    StagedAttachments.-shown { display: block; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.labels: list[str] = []

    def show(self, staged: list[AttachmentInfo]) -> None:
        self.labels = chip_labels(staged)
        self.set_class(bool(staged), "-shown")
        if not staged:
            self.update("")
            return
        t = Text("attached: ", style="dim")
        t.append_text(chips_text(self.labels, numbered=True))
        t.append("  /detach [N] removes", style="dim italic")
        self.update(t)
