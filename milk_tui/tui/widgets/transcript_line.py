"""One-line transcript entries: hand-off markers, notices, warnings and errors."""

from __future__ import annotations

from textual.widgets import Static

PREFIX = {"marker": "", "notice": "· ", "warning": "⚠ ", "error": "✗ "}


class TranscriptLine(Static):
    DEFAULT_CSS = """
    TranscriptLine { height: auto; padding: 0 1; margin: 0 0 1 0; color: $text-muted; }
    TranscriptLine.-marker { color: $secondary; text-style: bold; }
    TranscriptLine.-warning { color: $warning; }
    TranscriptLine.-error { color: $error; }
    """

    def __init__(self, kind: str, text: str) -> None:
        super().__init__(PREFIX.get(kind, "") + text, markup=False, classes=f"-{kind}")
        self.kind = kind
        self.text = text
