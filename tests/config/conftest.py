"""A user's home of their own for the resolution tests, and the app fixtures of tests/tui
(the snapshot fixture rooted at snapshots/, the pinned clocks) for the config notices."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui.conftest import _pinned_clock, snapshot  # noqa: F401  (fixtures re-exported)


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME and the XDG folders in tmp, and no MILK_HOME: config resolution as a user sees it."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share")):
        monkeypatch.setenv(var, str(home / sub))
    monkeypatch.delenv("MILK_HOME", raising=False)
    monkeypatch.delenv("MILK_CONFIG", raising=False)
    return home
