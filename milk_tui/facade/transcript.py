"""The live session as a document and its last exchange: ``/export`` and ``/drop``.

Exports are written 0600 like the database (docs/adr/0015-no-secret-on-disk.md): a
transcript holds whatever the session held.  Dropping changes the session, so it goes
through the engine (engine/turn_drop.py) and is refused while a turn runs.
"""

from __future__ import annotations

import asyncio
import copy
import os
import time
from dataclasses import dataclass
from pathlib import Path

from milk_tui.engine.dispatch import Dispatcher
from milk_tui.engine.turn_drop import DroppedExchange, drop_last_exchange, last_exchange_start
from milk_tui.facade.export import SUFFIXES, ExportFormat, render

__all__ = ["DroppedExchange", "Exported", "SessionTranscript", "parse_export"]


@dataclass(frozen=True)
class Exported:
    path: Path
    fmt: ExportFormat
    records: int


def parse_export(arg: str) -> tuple[ExportFormat, str]:
    """``/export [md|json|txt] [path]`` → (format, path as typed): a format word, a path, or
    both; the path's suffix chooses the format when no word does (Markdown by default)."""
    words = arg.strip().split(maxsplit=1)
    named: ExportFormat | None = None
    if words and words[0].lower() in ("md", "markdown", "json", "txt", "text"):
        named = {"markdown": "md", "text": "txt"}.get(words[0].lower(), words[0].lower())  # type: ignore[assignment]  # one of the literals above
        words = words[1:]
    path = words[0] if words else ""
    fmt = named or SUFFIXES.get(Path(path).suffix.lower(), "md")
    return fmt, path


class SessionTranscript:
    def __init__(self, dispatcher: Dispatcher) -> None:
        self._d = dispatcher

    async def export(self, fmt: ExportFormat, path_text: str = "") -> Exported:
        """Write the live session to ``path_text`` ("" → a default name in the session's
        folder); raises ``ValueError`` naming the file when it cannot."""
        s = copy.copy(self._d.session)  # rendered in a thread: a turn may commit meanwhile
        s.history, s.tokens = list(s.history), dict(s.tokens)
        path = Path(path_text or f"milk-transcript-{s.id[:8]}.{fmt}").expanduser()
        if not path.is_absolute():
            path = Path(self._d.cwd) / path
        text = await asyncio.to_thread(render, s, fmt, now=time.time())
        try:
            await asyncio.to_thread(_write_private, path, text)
        except OSError as e:
            raise ValueError(f"cannot write {path}: {e.strerror or e}") from None
        return Exported(path, fmt, len(s.history))

    def last_prompt(self) -> str | None:
        """The prompt ``drop_last`` would forget; None when there is nothing to drop."""
        h = self._d.session.history
        start = last_exchange_start(h)
        return None if start < 0 else h[start].content

    def drop_last(self) -> DroppedExchange | None:
        """Forget the last exchange in the session and the store.  Raises ``ValueError``
        (one line) while a turn runs and ``StorageError`` when the store refuses."""
        if self._d.busy:
            raise ValueError("a turn is running; drop it once it has answered (Ctrl+C cancels)")
        return drop_last_exchange(self._d.state)


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
