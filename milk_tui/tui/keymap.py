"""Every key binding of the app, each with a stable id that config ``keymap`` can remap.

Config example (``config.toml``)::

    [keymap]
    "milk.toggle_thinking" = "ctrl+y"
    "milk.toggle_side" = "f2,ctrl+b"
"""

from __future__ import annotations

import difflib

from textual.binding import Binding

# Function keys are priority: a focused TextArea binds F6/F7 (select line/all) itself.
APP_BINDINGS: list[Binding] = [
    Binding("ctrl+c", "interrupt", "Cancel/Quit", id="milk.interrupt", priority=True),
    Binding("ctrl+q", "quit", "Quit", id="milk.quit", show=False, priority=True),
    Binding("f1", "help", "Help", id="milk.help", priority=True),
    Binding("f2", "toggle_side", "Panes", id="milk.toggle_side", priority=True),
    Binding("ctrl+t", "toggle_thinking", "Thinking", id="milk.toggle_thinking", priority=True),
    Binding("f4", "show_context", "Hand-off", id="milk.show_context", priority=True),
    Binding("f6", "memory", "Memory", id="milk.memory", priority=True),
    Binding("f7", "sessions", "Sessions", id="milk.sessions", priority=True),
    Binding("f8", "cycle_theme", "Theme", id="milk.cycle_theme", show=False, priority=True),
    Binding("f3", "focus_facts", "Facts", id="milk.focus_facts", show=False, priority=True),
    Binding("escape", "focus_input", "Input", id="milk.focus_input", show=False),
    Binding(
        "pageup", "scroll_conversation(-1)", "Page up", id="milk.page_up", show=False, priority=True
    ),
    Binding(
        "pagedown",
        "scroll_conversation(1)",
        "Page down",
        id="milk.page_down",
        show=False,
        priority=True,
    ),
    Binding("ctrl+home", "conversation_top", "Oldest", id="milk.top", show=False, priority=True),
    Binding(
        "ctrl+end", "conversation_bottom", "Newest", id="milk.bottom", show=False, priority=True
    ),
]

# Priority: TextArea consumes Enter/Up/Down/Tab itself; these must win while the prompt has focus.
INPUT_BINDINGS: list[Binding] = [
    Binding("enter", "submit", "Send", id="milk.input.submit", show=False, priority=True),
    Binding(
        "shift+enter,alt+enter,ctrl+j,ctrl+n",
        "newline",
        "Newline",
        id="milk.input.newline",
        show=False,
        priority=True,
    ),
    Binding(
        "up", "history(-1)", "Previous", id="milk.input.history_prev", show=False, priority=True
    ),
    Binding("down", "history(1)", "Next", id="milk.input.history_next", show=False, priority=True),
    Binding(
        "ctrl+up",
        "global_history(-1)",
        "Global previous",
        id="milk.input.global_prev",
        show=False,
        priority=True,
    ),
    Binding(
        "ctrl+down",
        "global_history(1)",
        "Global next",
        id="milk.input.global_next",
        show=False,
        priority=True,
    ),
    Binding("ctrl+r", "history_search", "Search history", id="milk.input.search", priority=True),
    Binding("tab", "complete", "Complete", id="milk.input.complete", show=False, priority=True),
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
