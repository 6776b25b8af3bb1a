"""The remembered-facts browser/editor: widget, edit modal and full screen (issue 5 item 5).

The yes/no and text-prompt modals are shared with the rest of the app:
``milk_tui.tui.screens.confirm_modal``.
"""

from .browser import FactBrowser
from .edit_modal import FactDraft, FactEditModal
from .screen import FactsScreen

__all__ = ["FactBrowser", "FactDraft", "FactEditModal", "FactsScreen"]
