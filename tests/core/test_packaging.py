"""The wheel carries every package and the built-in themes; themes load from both places.

This checks the packaging config that decides the wheel's contents (fast);
tests/install/test_wheel_install.py builds the real wheel and runs it in a clean venv.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from milk_tui.tui import themes

ROOT = Path(__file__).resolve().parents[2]


def _setuptools() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_package_is_listed_and_themes_map_to_the_top_level_folder():
    cfg = _setuptools()
    on_disk = {
        ".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "milk_tui").rglob("__init__.py")
    }
    listed = set(cfg["packages"])
    wanted = on_disk | {"milk_tui.themes"}
    assert listed == wanted, (
        f"[tool.setuptools] packages in pyproject.toml: add {sorted(wanted - listed)}, "
        f"remove {sorted(listed - wanted)}"
    )
    assert cfg["package-dir"] == {"milk_tui.themes": "themes"}
    assert cfg["package-data"]["milk_tui.themes"] == ["*.toml"]
    assert {p.name for p in (ROOT / "themes").glob("*.toml")} >= {
        "milk-dark.toml",
        "milk-light.toml",
    }


def test_builtin_themes_load_from_the_checkout():
    found, notes = themes.load_themes()
    names = {t.name for t in found}
    assert {themes.DEFAULT_DARK, themes.DEFAULT_LIGHT} <= names and notes == []
    dark = next(t for t in found if t.name == themes.DEFAULT_DARK)
    assert dark.dark and dark.primary.upper() == "#E0B040"


def test_installed_package_dir_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    pkg = tmp_path / "milk_tui"
    (pkg / "themes").mkdir(parents=True)
    (pkg / "themes" / "milk-dark.toml").write_text('dark = true\nprimary = "#123456"\n')
    monkeypatch.setattr(themes, "PACKAGE_DIR", pkg)
    assert themes.builtin_dir() == pkg / "themes"
    found, _ = themes.load_themes()
    dark = next(t for t in found if t.name == themes.DEFAULT_DARK)
    assert dark.primary == "#123456"


def test_user_theme_folder_adds_and_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MILK_HOME", str(tmp_path))
    (tmp_path / "themes").mkdir()
    (tmp_path / "themes" / "mine.toml").write_text('dark = false\nprimary = "#00AA00"\n')
    (tmp_path / "themes" / "broken.toml").write_text("dark = [\n")
    found, notes = themes.load_themes()
    assert "mine" in {t.name for t in found}
    assert len(notes) == 1 and "broken.toml" in notes[0]


def test_missing_builtin_themes_fall_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MILK_HOME", str(tmp_path))
    monkeypatch.setattr(themes, "builtin_dir", lambda: tmp_path / "none")
    found, notes = themes.load_themes()
    assert {t.name for t in found} == {themes.DEFAULT_DARK, themes.DEFAULT_LIGHT}
    assert len(notes) == 2
