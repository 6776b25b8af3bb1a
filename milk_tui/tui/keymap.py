"""Every key binding of the app, each with a stable id that config ``keymap`` can remap.

Config example (``config.toml``)::

    [keymap]
    "milk.toggle_thinking" = "ctrl+y"
    "milk.toggle_side" = "f2,ctrl+b"
"""

from __future__ import annotations

import difflib

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
    priority_key("tab", "complete", "Complete", "milk.input.complete", show=False),
]


def binding_ids() -> list[str]:
    return [b.id for b in (*APP_BINDINGS, *INPUT_BINDINGS) if b.id]


def remappable_ids() -> set[str]:
    """Every binding id ``App.set_keymap`` can remap: the main screen's and the prompt's, and
    those of the screens, modals and widgets they open (fact browser, sessions, confirm…)."""
    from milk_tui.tui.app import MilkApp
    from milk_tui.tui.facts.browser import FactBrowser
    from milk_tui.tui.facts.edit_modal import FactEditModal
    from milk_tui.tui.facts.screen import FactsScreen
    from milk_tui.tui.facts.table import FactTable
    from milk_tui.tui.screens.confirm_modal import ConfirmModal, TextPromptModal
    from milk_tui.tui.screens.context_modal import ContextModal
    from milk_tui.tui.screens.help_modal import HelpModal
    from milk_tui.tui.screens.history_search import HistorySearch
    from milk_tui.tui.screens.permission_modal import PermissionModal
    from milk_tui.tui.sessions_screen import SessionsScreen
    from milk_tui.tui.widgets.tool_line import ToolLine

    owners = (
        MilkApp,
        FactBrowser,
        FactEditModal,
        FactsScreen,
        FactTable,
        ConfirmModal,
        TextPromptModal,
        ContextModal,
        HelpModal,
        HistorySearch,
        PermissionModal,
        SessionsScreen,
        ToolLine,
    )
    ids = set(binding_ids())
    for owner in owners:
        ids.update(b.id for b in owner.BINDINGS if isinstance(b, Binding) and b.id)
    return ids


def validate_keymap(keymap: dict[str, str]) -> list[str]:
    """Notes for unknown ids in the config keymap (a typo should not pass silently)."""
    known = remappable_ids()
    notes = []
    for k in keymap:
        if k not in known:
            near = difflib.get_close_matches(k, known, n=3)
            notes.append(
                f"keymap: unknown binding id '{k}'"
                + (f" (did you mean {', '.join(near)}?)" if near else "")
            )
    return notes
