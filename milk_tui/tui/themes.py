"""milk themes: TOML files shipped with the app, plus the user's own in ``<data dir>/themes/``.

Themes are data so users can add their own without code; each file holds the keyword
arguments of ``textual.theme.Theme``.  A broken user theme is skipped with a note, never
fatal.  The built-in files live in the repository's top-level ``themes/`` folder, which the
wheel carries as ``milk_tui/themes/`` (see ``[tool.setuptools.package-dir]`` in
pyproject.toml).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from textual.app import App
from textual.theme import Theme

from milk_tui.config.paths import data_dir
from milk_tui.tui.widgets.palette import Palette

PACKAGE_DIR = Path(__file__).resolve().parents[1]
"""The ``milk_tui`` package's folder (a path, not ``importlib.resources``: that costs every
start ~2 ms of imports, and milk reads its own files from a folder anyway)."""
CHECKOUT_DIR = PACKAGE_DIR.parent / "themes"
"""The top-level ``themes/`` of a source checkout or an editable install."""
DEFAULT_DARK = "milk-dark"
DEFAULT_LIGHT = "milk-light"


def builtin_dir() -> Path:
    """Where the built-in themes are: inside the installed package, else the checkout."""
    packaged = PACKAGE_DIR / "themes"
    return packaged if packaged.is_dir() else CHECKOUT_DIR


def user_dir() -> Path:
    return data_dir() / "themes"


def theme_dirs() -> list[Path]:
    """Built-in first, so a user theme of the same name replaces the built-in one."""
    return [builtin_dir(), user_dir()]


def load_theme_file(path: Path) -> Theme:
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    raw.setdefault("name", path.name.removesuffix(".toml"))
    variables = raw.pop("variables", {}) or {}
    return Theme(**raw, variables={str(k): str(v) for k, v in variables.items()})


def load_themes() -> tuple[list[Theme], list[str]]:
    """All milk themes plus notes about files that could not be read."""
    found: dict[str, Theme] = {}
    notes: list[str] = []
    for d in theme_dirs():
        if not d.is_dir():
            continue
        for path in sorted((p for p in d.iterdir() if p.name.endswith(".toml")), key=_name):
            try:
                t = load_theme_file(path)
            except (OSError, ValueError, TypeError) as e:
                notes.append(f"theme file {path} skipped: {e}")
                continue
            found[t.name] = t
    for name, dark in ((DEFAULT_DARK, True), (DEFAULT_LIGHT, False)):
        if name not in found:
            # The app must always have its two defaults; a plain stand-in keeps it running.
            notes.append(f"built-in theme {name} not found in {builtin_dir()}")
            found[name] = Theme(name=name, primary="#E0B040", dark=dark)
    return list(found.values()), notes


def set_theme(app: App[Any], name: str) -> None:
    """Give ``app`` the registered theme ``name``.  Before the app runs nothing is parsed
    yet, and the stylesheet takes the theme's variables at once: set as usual, the theme's
    watcher would have ``refresh_css`` reparse every source read by then into a new
    stylesheet without the parse cache, and each would be parsed again when the next is
    added.  That only for a theme as dark or light as the current one: the ``-dark-mode``
    class and the ANSI colours then stay as they are (``App._watch_theme``)."""
    theme = app.get_theme(name)
    if app.is_running or theme is None or theme.dark != app.current_theme.dark:
        app.theme = name
        return
    # The value without its watcher: https://textual.textualize.io/api/dom_node/
    app.set_reactive(App.theme, name)
    app.set_class(True, f"-theme-{name}", update=False)
    app.stylesheet.set_variables(app.get_css_variables())


def _name(path: Path) -> str:
    return path.name


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
