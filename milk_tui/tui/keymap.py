"""Every key binding of the app, each with a stable id that config ``keymap`` can remap.

Config example (``config.toml``)::

    [keymap]
    "milk.toggle_thinking" = "ctrl+y"
    "milk.toggle_side" = "f2,ctrl+b"
"""

from __future__ import annotations

from textual.binding import Binding


def priority_key(
    keys: str, action: str, description: str, id: str, *, show: bool = True
) -> Binding:
    """A binding that wins over the focused widget's own: the prompt's TextArea binds Enter,
    Up/Down, Tab and F6/F7 (select line/all) itself, and these must reach the app."""
    return Binding(keys, action, description, id=id, show=show, priority=True)


APP_BINDINGS: list[Binding] = [
    priority_key("ctrl+c", "interrupt", "Cancel/Quit", "milk.interrupt"),
    priority_key("ctrl+q", "quit", "Quit", "milk.quit", show=False),
    priority_key("f1", "help", "Help", "milk.help"),
    priority_key("f2", "toggle_side", "Panes", "milk.toggle_side"),
    priority_key("ctrl+t", "toggle_thinking", "Thinking", "milk.toggle_thinking"),
    priority_key("f4", "show_context", "Hand-off", "milk.show_context"),
    priority_key("f6", "memory", "Memory", "milk.memory"),
    priority_key("f7", "sessions", "Sessions", "milk.sessions"),
    priority_key("f8", "cycle_theme", "Theme", "milk.cycle_theme", show=False),
    priority_key("f3", "focus_facts", "Facts", "milk.focus_facts", show=False),
    priority_key("ctrl+g", "grant_retry", "Grant & retry", "milk.grant_retry", show=False),
    priority_key(
        "alt+c", "copy('reply')", "Copy reply (again: older)", "milk.copy_reply", show=False
    ),
    priority_key(
        "alt+k", "copy('code')", "Copy code block (again: older)", "milk.copy_code", show=False
    ),
    Binding("escape", "focus_input", "Input", id="milk.focus_input", show=False),
    priority_key("pageup", "scroll_conversation(-1)", "Page up", "milk.page_up", show=False),
    priority_key("pagedown", "scroll_conversation(1)", "Page down", "milk.page_down", show=False),
    priority_key("ctrl+home", "conversation_top", "Oldest", "milk.top", show=False),
    priority_key("ctrl+end", "conversation_bottom", "Newest", "milk.bottom", show=False),
]

INPUT_BINDINGS: list[Binding] = [
    priority_key("enter", "submit", "Send", "milk.input.submit", show=False),
    priority_key(
        "shift+enter,alt+enter,ctrl+j,ctrl+n",
        "newline",
        "Newline",
        "milk.input.newline",
        show=False,
    ),
    priority_key("up", "history(-1)", "Previous", "milk.input.history_prev", show=False),
    priority_key("down", "history(1)", "Next", "milk.input.history_next", show=False),
    priority_key(
        "ctrl+up", "global_history(-1)", "Global previous", "milk.input.global_prev", show=False
    ),
    priority_key(
        "ctrl+down", "global_history(1)", "Global next", "milk.input.global_next", show=False
    ),
    priority_key("ctrl+r", "history_search", "Search history", "milk.input.search"),
    priority_key("tab", "complete(1)", "Complete", "milk.input.complete", show=False),
    priority_key(
        "shift+tab", "complete(-1)", "Complete (back)", "milk.input.complete_back", show=False
    ),
    priority_key("ctrl+d", "eof", "Quit on an empty prompt", "milk.input.eof", show=False),
]


def binding_ids() -> list[str]:
    return [b.id for b in (*APP_BINDINGS, *INPUT_BINDINGS) if b.id]


APP_LEVEL_BINDINGS: list[Binding] = [
    Binding("ctrl+c", "interrupt", "Cancel/Quit", id="milk.interrupt", priority=True, show=False),
    Binding("ctrl+q", "quit", "Quit", id="milk.quit", priority=True, show=False),
]
"""The app's own keys: they work on every screen, modals included."""


BEFORE_READY = frozenset(
    {"focus_input", "focus_facts", "scroll_conversation", "conversation_top"}
    | {"conversation_bottom", "toggle_side", "toggle_thinking", "cycle_theme", "help"}
    | {"show_context", "quit", "interrupt", "copy"}
)
"""Main-screen actions that work while the agents are still being built (the first instants
after the main screen is painted; ``tui/app.py``): they move the view.  The rest act on the
application and wait for it (``MainScreen.check_action``)."""
