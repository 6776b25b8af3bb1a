"""One line of clickable filter chips: scope, producer, consumer, order.

A row of ``Select`` widgets cost more to mount than the whole virtualised table (each
brings an overlay and an option list); the browser has to paint 100,000 facts in
under 300 ms, so the filters are one ``Static`` whose chips cycle on click or on a key.
"""

from __future__ import annotations

from rich.markup import escape
from textual.message import Message
from textual.widgets import Static

from milk_tui.facade.facts import CONSUMERS, ORDERS, PRODUCERS, SCOPES, FactQuery

CYCLES: dict[str, tuple[str | None, ...]] = {
    "scope": SCOPES,
    "producer": (None, *PRODUCERS),
    "consumer": (None, *CONSUMERS),
    "order": ORDERS,
}
SCOPE_LABELS = {"here": "visible here", "session": "this session", "global": "global",
                "all": "all sessions"}  # fmt: skip


def next_value(field: str, current: str | None) -> str | None:
    values = CYCLES[field]
    return values[(values.index(current) + 1) % len(values)]


class FilterBar(Static):
    DEFAULT_CSS = """
    FilterBar { height: 1; padding: 0 1; color: $text-muted; }
    """

    class Cycle(Message):
        """A chip was clicked: advance that filter."""

        def __init__(self, field: str) -> None:
            super().__init__()
            self.field = field

    def show(self, q: FactQuery) -> None:
        values = {"scope": SCOPE_LABELS[q.scope], "producer": q.producer or "anyone",
                  "consumer": q.consumer or "both", "order": q.order}  # fmt: skip
        names = {"scope": "scope", "producer": "by", "consumer": "for", "order": "order"}
        # each name starts with its key; the bold initial is the key hint
        chips = [
            f"[@click=cycle('{f}')][b]{names[f][0]}[/b]{names[f][1:]}: "
            f"[$text]{escape(str(v))}[/] ▾[/]"
            for f, v in values.items()
        ]
        self.update("  ".join(chips))

    def action_cycle(self, field: str) -> None:
        self.post_message(self.Cycle(field))
