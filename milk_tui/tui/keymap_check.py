"""Checking a configured keymap against every binding id the app can remap.

Separate from ``keymap.py`` because it must know every screen, modal and widget that
declares bindings, while those widgets import their bindings from ``keymap.py``.
"""

from __future__ import annotations

import difflib

from textual.binding import Binding

from milk_tui.tui.facts.browser import FactBrowser
from milk_tui.tui.facts.edit_modal import FactEditModal
from milk_tui.tui.facts.screen import FactsScreen
from milk_tui.tui.facts.table import FactTable
from milk_tui.tui.keymap import APP_LEVEL_BINDINGS, binding_ids
from milk_tui.tui.screens.confirm_modal import ConfirmModal, TextPromptModal
from milk_tui.tui.screens.context_modal import ContextModal
from milk_tui.tui.screens.help_modal import HelpModal
from milk_tui.tui.screens.history_search import HistorySearch
from milk_tui.tui.screens.permission_modal import PermissionModal
from milk_tui.tui.screens.project_trust_modal import ProjectTrustModal
from milk_tui.tui.sessions_screen import SessionsScreen
from milk_tui.tui.widgets.tool_line import ToolLine


def remappable_ids() -> set[str]:
    """Every binding id ``App.set_keymap`` can remap: the main screen's and the prompt's, and
    those of the screens, modals and widgets they open (fact browser, sessions, confirm…)."""

    owners = (
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
        ProjectTrustModal,
        SessionsScreen,
        ToolLine,
    )
    ids = set(binding_ids()) | {b.id for b in APP_LEVEL_BINDINGS if b.id}
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
