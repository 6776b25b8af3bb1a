"""Footer key hints as one static line.

Textual's ``Footer`` recomposes a widget per key whenever focus or bindings change, which
cost ~100 ms of start-up here and work on every focus change; the main screen's keys do
not change while it runs, so they are rendered once (keymap remaps included).
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from milk_tui.tui.keymap import APP_BINDINGS


class KeyHints(Static):
    DEFAULT_CSS = """
    KeyHints { height: 1; background: $panel; color: $text-muted; padding: 0 1; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)

    def on_mount(self) -> None:
        self.call_after_refresh(self.refresh_hints)

    def refresh_hints(self) -> None:
        t = Text(no_wrap=True, overflow="ellipsis")
        seen: set[str] = set()
        order = {b.id: i for i, b in enumerate(APP_BINDINGS)}
        bindings = sorted(
            (a.binding for a in self.screen.active_bindings.values()),
            key=lambda b: order.get(b.id, len(order)),
        )
        for b in bindings:
            if not b.show or b.action in seen:
                continue
            seen.add(b.action)
            if t:
                t.append("  ")
            t.append(self.app.get_key_display(b), style="bold")
            t.append(" " + (b.description or b.action))
        t.append("  ^p", style="bold")
        t.append(" palette")
        self.update(t)
