"""milk themes: TOML files in ``themes/`` (repo root) and in ``<data dir>/themes/`` (user).

Themes are data so users can add their own without code; each file holds the keyword
arguments of ``textual.theme.Theme``.  A broken user theme is skipped with a note, never
fatal.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from textual.theme import Theme

from milk_tui.config.paths import data_dir
from milk_tui.tui.widgets.palette import Palette

BUILTIN_DIR = Path(__file__).resolve().parents[2] / "themes"
"""Repo-root ``themes/`` (DESIGN §2 layout); present in a source checkout / editable install."""
DEFAULT_DARK = "milk-dark"
DEFAULT_LIGHT = "milk-light"

_FALLBACK = {
    DEFAULT_DARK: dict(
        dark=True,
        primary="#E0B040",
        secondary="#5FAFD7",
        accent="#D7875F",
        foreground="#E4E1D8",
        background="#14130F",
        surface="#1C1B16",
        panel="#26241D",
        success="#87C05F",
        warning="#E8C547",
        error="#E0605A",
    ),
    DEFAULT_LIGHT: dict(
        dark=False,
        primary="#9A6B00",
        secondary="#1F6FA8",
        accent="#B0522A",
        foreground="#2A2722",
        background="#FBF8F1",
        surface="#F2EEE4",
        panel="#E6E0D2",
        success="#3D7A1E",
        warning="#A8790C",
        error="#B3261E",
    ),
}
"""Used only when the theme files are missing (e.g. a wheel built without them)."""


def theme_dirs() -> list[Path]:
    return [BUILTIN_DIR, data_dir() / "themes"]


def load_theme_file(path: Path) -> Theme:
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    raw.setdefault("name", path.stem)
    variables = raw.pop("variables", {}) or {}
    return Theme(**raw, variables={str(k): str(v) for k, v in variables.items()})


def load_themes() -> tuple[list[Theme], list[str]]:
    """All milk themes plus notes about files that could not be read."""
    found: dict[str, Theme] = {}
    notes: list[str] = []
    for d in theme_dirs():
        if not d.is_dir():
            continue
        for path in sorted(d.glob("*.toml")):
            try:
                t = load_theme_file(path)
            except (OSError, ValueError, TypeError) as e:
                notes.append(f"theme file {path} skipped: {e}")
                continue
            found[t.name] = t
    for name, kw in _FALLBACK.items():
        found.setdefault(name, Theme(name=name, **kw))  # type: ignore[arg-type]
    return list(found.values()), notes


def palette_for(theme: Theme) -> Palette:
    """Reply colours derived from a Textual theme (also Textual's built-in ones)."""
    fg = theme.foreground or ("#e0e0e0" if theme.dark else "#202020")
    return Palette(
        foreground=fg,
        primary=theme.primary,
        accent=theme.secondary or theme.accent or theme.primary,
        muted="#8a8a8a" if theme.dark else "#6a6a6a",
        code_bg=(theme.panel or theme.surface or ("#262626" if theme.dark else "#eeeeee")),
        dark=theme.dark,
    )
