"""The Textual app: wiring only — runtime, bridge, themes, keymap, screens."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
from collections.abc import Callable, Iterable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from ..core.events import BusEvent
from ..core.runtime import Runtime, build_runtime
from .bridge import BusBridge
from .commands import MilkCommands
from .cooperative import make_cooperative
from .keymap import validate_keymap
from .screens.main import MainScreen
from .themes import DEFAULT_DARK, load_themes, palette_for
from .ui_state import UIState
from .widgets.md_render import Palette


class MilkApp(App[int]):
    TITLE = "milk"
    COMMANDS = App.COMMANDS | {MilkCommands}
    BINDINGS = [
        Binding("ctrl+c", "interrupt", "Cancel/Quit", id="milk.interrupt", priority=True, show=False),
        Binding("ctrl+q", "quit", "Quit", id="milk.quit", priority=True, show=False),
    ]

    def __init__(self, runtime: Runtime, *, ui_state: UIState | None = None,
                 fact_clock: Callable[[], float] | None = None) -> None:
        super().__init__()
        self.fact_clock = fact_clock
        """Clock for fact ages in the facts pane (tests pin it; None = wall clock)."""
        self.runtime = runtime
        make_cooperative(runtime.dispatcher)
        self.ui_state = ui_state or UIState.load()
        self.palette = Palette()
        self.main_screen: MainScreen | None = None
        self.bridge = BusBridge(runtime.bus, self._deliver)
        self.theme_notes: list[str] = []
        self.shut_down = False
        themes, notes = load_themes()
        for t in themes:
            self.register_theme(t)
        self.theme_notes = notes
        wanted = self.ui_state.theme or runtime.config.theme or DEFAULT_DARK
        self.theme = wanted if wanted in self.available_themes else DEFAULT_DARK
        self.palette = palette_for(self.current_theme)
        keymap = dict(runtime.config.keymap)
        if keymap:
            self.set_keymap(keymap)
        runtime.startup_notes.extend(validate_keymap(keymap) + notes)

    def on_mount(self) -> None:
        self.main_screen = MainScreen()
        self.push_screen(self.main_screen)
        self.bridge.start()
        self.theme_changed_signal.subscribe(self, self._theme_changed)

    async def on_unmount(self) -> None:
        self.bridge.stop()

    # ----- bus → widgets ----------------------------------------------------------------

    def _deliver(self, batch: list[BusEvent]) -> None:
        main = self.main_screen
        if main is None or not main.is_attached:
            return
        main.handle_bus_events(batch)
        top = self.screen
        if top is not main and hasattr(top, "handle_bus_event"):
            for e in batch:
                if e.type.startswith("percept_"):  # type: ignore[attr-defined]
                    top.handle_bus_event(e)  # type: ignore[attr-defined]

    def on_fact_browser_jump_to_turn(self, event) -> None:  # type: ignore[no-untyped-def]
        """From the full facts screen (it dismisses itself); the conversation shows the turn."""
        if self.main_screen is not None:
            self.main_screen.on_fact_browser_jump_to_turn(event)

    # ----- themes -----------------------------------------------------------------------

    def _theme_changed(self, theme) -> None:  # type: ignore[no-untyped-def]
        self.palette = palette_for(theme)
        self.ui_state.theme = theme.name
        self.ui_state.save()
        if self.main_screen is not None and self.main_screen.is_attached:
            from .widgets.conversation import Conversation

            self.main_screen.query_one(Conversation).set_palette(self.palette)

    def cycle_theme(self) -> None:
        names = sorted(self.available_themes)
        milk = [n for n in names if n.startswith("milk-")]
        order = milk + [n for n in names if n not in milk]
        i = order.index(self.theme) if self.theme in order else -1
        self.theme = order[(i + 1) % len(order)]

    # ----- actions that must work on every screen ---------------------------------------

    def action_interrupt(self) -> None:
        from .screens.permission_modal import PermissionModal

        top = self.screen
        if isinstance(top, PermissionModal):
            top.dismiss(False)
        elif top is not self.main_screen and isinstance(top, Screen) and top.is_modal:
            top.dismiss(None)
        elif self.main_screen is not None:
            if top is not self.main_screen:
                self.pop_screen()
            self.main_screen.action_interrupt()

    async def action_quit(self) -> None:
        await self.shutdown()
        self.exit(0)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)

    async def shutdown(self) -> None:
        """Cancel a running turn and consolidate memory (session end, DESIGN §5.7)."""
        if self.shut_down:
            return
        self.shut_down = True
        d = self.runtime.dispatcher
        if d.busy:
            d.cancel()
            for _ in range(50):
                if not d.busy:
                    break
                await asyncio.sleep(0.02)
        await d.end_session()


def run_app(args: argparse.Namespace) -> int:
    """Entry point used by ``milk_tui.cli``; returns the process exit code."""
    rt = build_runtime(
        config_path=getattr(args, "config", None), new=bool(getattr(args, "new", False)),
        session_name=getattr(args, "session", "") or "", demo=bool(getattr(args, "demo", False)),
        debug=bool(getattr(args, "debug", False)), permission_policy="ask",
    )
    app = MilkApp(rt)
    try:
        code = app.run()
    finally:
        if not app.shut_down:
            with contextlib.suppress(Exception):
                asyncio.run(app.shutdown())
        with contextlib.suppress(Exception):
            rt.db.close()
    if os.environ.get("MILK_TUI_TRACE"):
        print(f"milk-tui: {app.bridge.events_in} events in {app.bridge.frames} frames")
    return int(code or 0)
