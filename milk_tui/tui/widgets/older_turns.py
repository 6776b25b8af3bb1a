"""A long session's turns before the transcript's items, turned into items a page at a time.

A resumed session holds only its newest turns (model/turn_history.py); the transcript is
made of those, and scrolling past its top asks this source for the page of turns before
(read from the store through the facade), so a 100,000-turn session costs the screen only
what is shown and what the user scrolls back through.
"""

from __future__ import annotations

from collections.abc import Callable

from milk_tui.model.session import Turn
from milk_tui.tui.transcript import Item, inert_items

TURN_PAGE = 200
"""Turns read per page: a few ms from the store, more blocks than two scrolls mount."""


class OlderTurns:
    def __init__(self, remaining: int, read: Callable[[int, int], list[Turn]]) -> None:
        self.remaining = remaining
        """Turns before the first item (1-based positions 1..remaining)."""
        self._read = read

    def take(self, turns: int = TURN_PAGE) -> list[Item]:
        """The items of up to ``turns`` turns just before the first item (inert), oldest first."""
        if self.remaining <= 0:
            return []
        page = self._read(self.remaining, turns)
        if not page:  # the store holds fewer than counted (the session was cut meanwhile)
            self.remaining = 0
            return []
        self.remaining -= len(page)
        return inert_items(page, first=self.remaining + 1)


def older_marker(blocks: int, source: OlderTurns | None) -> str:
    """The line above the transcript while older blocks or turns are left to load."""
    more = f" and {source.remaining} earlier turns" if source else ""
    return f"↑ {blocks} earlier blocks{more} — scroll up to load"
