"""The main screen's stylesheet is read with the app's (tui/app.py ``MAIN_SCREEN_CSS``):
showing the main screen after the startup screen parses no rule again (Textual reparses
every source when a screen brings a stylesheet it has not read, ``App._load_screen_css``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.color import Color
from textual.css.stylesheet import Stylesheet

from milk_tui.facade.opening import Opening, open_application
from milk_tui.tui.app import MilkApp
from milk_tui.tui.screens.main import MainScreen
from milk_tui.tui.ui_state import UIState

from .conftest import until


def test_the_app_reads_the_stylesheet_the_main_screen_names() -> None:
    assert [str(p) for p in MainScreen().css_path] == [MilkApp.CSS_PATH]


async def test_showing_the_main_screen_reparses_no_stylesheet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reparsed: list[str] = []
    reparse = Stylesheet.reparse

    def counted(self: Stylesheet) -> None:
        reparsed.append(type(self).__name__)
        reparse(self)

    monkeypatch.setattr(Stylesheet, "reparse", counted)

    class Probe(MilkApp):
        def _show_main(self) -> None:
            reparsed.clear()  # the theme's refresh before the first frame is not counted
            super()._show_main()
            self.reparsed_to_main = len(reparsed)

    def factory() -> Opening:
        return open_application(cwd=str(tmp_path), demo=True, cooperative=True)

    app = Probe(runtime_factory=factory)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MainScreen))
        await pilot.pause()
        assert app.reparsed_to_main == 0
        # and the main screen's rules apply: the side panes are 38 cells wide
        assert app.screen.query_one("#side").outer_size.width == 38


@pytest.mark.parametrize(("theme", "reparses"), [("milk-dark", 0), ("milk-light", 1)])
async def test_a_start_parses_its_theme_with_its_first_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, theme: str, reparses: int
) -> None:
    """The start's theme is set before the app runs (tui/themes.py ``set_theme``): up to the
    main screen nothing is parsed twice for it, and the screen has the theme's colours and
    class.  A theme of the other brightness (light; Textual's default is dark) is set as
    usual, through its watcher, which reparses once."""
    reparsed: list[str] = []
    reparse = Stylesheet.reparse

    def counted(self: Stylesheet) -> None:
        reparsed.append(type(self).__name__)
        reparse(self)

    monkeypatch.setattr(Stylesheet, "reparse", counted)

    class Probe(MilkApp):
        def _show_main(self) -> None:
            super()._show_main()
            self.reparsed_to_main = len(reparsed)

    def factory() -> Opening:
        return open_application(cwd=str(tmp_path), demo=True, cooperative=True)

    app = Probe(runtime_factory=factory, ui_state=UIState(theme=theme))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MainScreen))
        await pilot.pause()
        assert app.reparsed_to_main == reparses
        assert app.theme == theme and app.has_class(f"-theme-{theme}")
        expected = app.get_theme(theme)
        assert expected is not None and expected.background is not None
        assert app.screen.styles.background == Color.parse(expected.background)
