"""The metrics tests take the app tests' fixtures: pinned spinners and time stamps, and SVG
snapshots kept under ``<repo>/snapshots/tui/<test file>/``."""

from __future__ import annotations

from tui.conftest import _pinned_clock, snapshot  # noqa: F401  (fixtures, used by name)
