"""The tmux fixture of ``tests/tui/test_tmux_smoke.py`` for this folder's terminal tests."""

from __future__ import annotations

from tui.test_tmux_smoke import tmux

__all__ = ["tmux"]
