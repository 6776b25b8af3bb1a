"""The remembered-facts browser/editor: widget, modals and full screen (issue 5 item 5)."""

from .browser import FactBrowser
from .confirm import ConfirmModal, TextPromptModal
from .edit_modal import FactDraft, FactEditModal
from .screen import FactsScreen

__all__ = ["ConfirmModal", "FactBrowser", "FactDraft", "FactEditModal", "FactsScreen",
           "TextPromptModal"]  # fmt: skip
