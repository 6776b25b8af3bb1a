"""The remembered-facts browser/editor: widget, edit modal and full screen.

The yes/no and text-prompt modals are shared with the rest of the app:
``milk_tui.tui.screens.confirm_modal``.
"""

from milk_tui.tui.facts.browser import FactBrowser
from milk_tui.tui.facts.edit_modal import FactDraft, FactEditModal
from milk_tui.tui.facts.screen import FactsScreen

__all__ = ["FactBrowser", "FactDraft", "FactEditModal", "FactsScreen"]
