"""Modules the main screen's first frame does not use, loaded right after it in a thread:
the slash-command tables and Tab completion (``tui/commands.py``, ``tui/completion.py``:
a first key, Tab or Enter then finds them loaded) and the command palette's milk actions.

A start pays only for what it paints (``docs/performance.md``, "Cold start, round 10");
``tests/test_layering.py`` names what must not load before that frame.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.command import Provider

    from milk_tui.tui.completion import Names
    from milk_tui.tui.screens.main import MainScreen


def milk_commands() -> type[Provider]:
    """The palette's provider of milk actions, loaded when the palette first opens:
    ``App.COMMANDS`` takes a callable that returns the provider class (``ProviderSource``,
    https://textual.textualize.io/api/command/)."""
    from milk_tui.tui.commands import MilkCommands

    return MilkCommands


def screen_names(screen: MainScreen) -> Names:
    """``completion.screen_names``, loaded at the first Tab if not yet."""
    from milk_tui.tui.completion import screen_names

    return screen_names(screen)


def load_soon() -> None:
    """Load them in a daemon thread (the first frame is written; the loop stays free)."""
    threading.Thread(target=_load, name="load-after-frame", daemon=True).start()


def _load() -> None:
    from milk_tui.tui import commands, completion  # noqa: F401
