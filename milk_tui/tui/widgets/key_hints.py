"""Footer key hints as one static line.

Textual's ``Footer`` recomposes a widget per key whenever focus or bindings change, which
cost ~100 ms of start-up here; this line is one ``Text`` rebuilt when focus moves (keymap
remaps included).  The focused pane's own keys (the facts table's letters) come first, so
that the footer always says what the keys do where the user is.
"""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Static

from milk_tui.tui.keymap import APP_BINDINGS, INPUT_BINDINGS

APP_ORDER = {b.id: i for i, b in enumerate(APP_BINDINGS)}
INPUT_IDS = {b.id for b in INPUT_BINDINGS}


def hint_order(b: Binding) -> tuple[int, int]:
    """The focused pane's keys, then the app's in keymap order, then the prompt's."""
    if b.id in APP_ORDER:
        return (1, APP_ORDER[b.id])
    return (2, 0) if b.id in INPUT_IDS else (0, 0)


class KeyHints(Static):
    DEFAULT_CSS = """
    KeyHints { height: 1; background: $panel; color: $text-muted; padding: 0 1; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)

    def on_mount(self) -> None:
        self.watch(self.screen, "focused", self._focus_moved, init=False)
        self.call_after_refresh(self.refresh_hints)

    def _focus_moved(self, focused: Widget | None) -> None:
        self.refresh_hints()

    def refresh_hints(self) -> None:
        t = Text(no_wrap=True, overflow="ellipsis")
        seen: set[str] = set()
        bindings = sorted((a.binding for a in self.screen.active_bindings.values()), key=hint_order)
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
