"""The Textual app: wiring only — the application facade, bridge, themes, keymap, screens.

Start-up order matters for the cold-start budget: the first frame needs only Textual and
this module.  Then, in a thread, the first half of start-up opens the database and session,
and the config unless the last start's card stands for it (``facade/opening.py``,
``facade/start_card.py``); the main screen replaces the startup screen and paints the
session from it; only after that frame are the agents, router and dispatcher built (most of
the engine's modules, and the config if the card stood for it), again in a thread, and the
application installed (``launch.py`` starts it all for the program).  A prompt sent
before then waits for it.  The cyclic GC is off until the main screen is up; then the
objects alive at that point are frozen out of it: a full collection over the whole widget
tree otherwise stalls keys for 50–100 ms mid-stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import App
from textual.binding import BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen

from milk_tui.model.terminal_text import inert
from milk_tui.tui import gc_pace
from milk_tui.tui.after_frame import load_soon, milk_commands
from milk_tui.tui.keymap import APP_LEVEL_BINDINGS
from milk_tui.tui.screens.startup import StartupScreen
from milk_tui.tui.terminal_keys import name_alt_enter
from milk_tui.tui.themes import DEFAULT_DARK, load_themes, palette_for, set_theme
from milk_tui.tui.ui_state import UIState
from milk_tui.tui.widgets.palette import Palette

if TYPE_CHECKING:
    from milk_tui.facade.application import Application, Runtime
    from milk_tui.facade.opening import Opening, StartView
    from milk_tui.model.events import BusEvent
    from milk_tui.tui.bridge import BusBridge
    from milk_tui.tui.facts.browser import FactBrowser
    from milk_tui.tui.first_text import FirstTextGate
    from milk_tui.tui.screens.main import MainScreen

EXIT_STARTUP_FAILED = 2
"""Same code as the CLI's usage/config errors: the session could not even be opened."""


MAIN_SCREEN_CSS = str((Path(__file__).parent / "screens" / "main.tcss").resolve())
"""The main screen's stylesheet (its ``CSS_PATH``), read with the app's own: a screen's
stylesheet that is new when the screen is shown makes Textual parse every rule again
(``App._load_screen_css``), after the startup screen's frame."""


class MilkApp(App[int]):
    TITLE = "milk"
    CSS_PATH = MAIN_SCREEN_CSS
    COMMANDS = App.COMMANDS | {milk_commands}
    BINDINGS: ClassVar[list[BindingType]] = list(APP_LEVEL_BINDINGS)

    def __init__(
        self,
        application: Application | Runtime | None = None,
        *,
        ui_state: UIState | None = None,
        fact_clock: Callable[[], float] | None = None,
        runtime_factory: Callable[[], Application | Runtime | Opening] | None = None,
    ) -> None:
        """``application`` (or what ``runtime_factory`` returns, called in a thread after the
        first frame) may also be a bare engine runtime, as tests and benchmarks build one;
        an ``Opening`` (``run_app``'s) is painted first and finished after that frame."""
        super().__init__()
        if application is None and runtime_factory is None:
            raise ValueError("MilkApp needs an application or a runtime_factory")
        name_alt_enter()
        self.fact_clock = fact_clock
        """Clock for fact ages in the facts pane (tests pin it; None = wall clock)."""
        self.application: Application | None = None
        self.view: StartView | None = None
        """What the main screen paints from: the opening, then the application."""
        self.application_ready = asyncio.Event()
        """Set once the application is installed (commands and turns wait for it)."""
        self._opening: Opening | None = None
        self._runtime_factory = runtime_factory
        self.startup_error = ""
        self.ui_state = ui_state or UIState.load()
        self.main_screen: MainScreen | None = None
        self.bridge: BusBridge | None = None
        self.first_text: FirstTextGate | None = None
        self._painted_keymap: dict[str, str] = {}
        """The keymap the main screen was first set up with (``_correct_view``)."""
        self.shut_down = False
        themes, self.theme_notes = load_themes()
        for t in themes:
            self.register_theme(t)
        self._apply_theme(self.ui_state.theme or DEFAULT_DARK)
        if application is not None:
            self._install(application)
        else:
            # Start-up allocates a great deal and frees little (imports, CSS, the session):
            # cyclic collections meanwhile are pure cost.  Back on once the main screen is up.
            gc.disable()

    @property
    def facade(self) -> Application:
        """The application once it is built (every screen but the startup one runs after)."""
        assert self.application is not None, "the application is not built yet"
        return self.application

    @property
    def runtime(self) -> Runtime:
        """The engine under the facade, for tests and benchmarks only."""
        return self.facade.runtime

    def _apply_theme(self, wanted: str) -> None:
        set_theme(self, wanted if wanted in self.available_themes else DEFAULT_DARK)
        self.palette: Palette = palette_for(self.current_theme)

    def _install(self, target: Application | Runtime) -> None:
        from milk_tui.facade.application import as_application

        application = as_application(target, cooperative=True)
        self._install_view(application)
        self._install_application(application)

    def _install_view(self, view: StartView) -> None:
        """Theme, keymap and their notes: what the main screen needs before its first frame."""
        self.view = view
        if not self.ui_state.theme and view.theme:
            self._apply_theme(view.theme)
        self._apply_keymap(view.keymap, view.startup_notes)
        view.startup_notes.extend(self.theme_notes)

    def _apply_keymap(self, keymap: dict[str, str], notes: list[str]) -> None:
        """The user's keymap, its problems added to ``notes``."""
        self._painted_keymap = keymap
        if keymap:  # checking it imports every screen with bindings: only when there is one
            from milk_tui.tui.keymap_check import validate_keymap

            self.set_keymap(keymap)
            notes.extend(validate_keymap(keymap))

    def _correct_view(self, real: Application) -> None:
        """The main screen was painted from a card the config did not match
        (facade/start_card.py): its theme, keymap, agents and notes are set right."""
        if not self.ui_state.theme and real.theme != self.theme:
            self._apply_theme(real.theme)
        if real.keymap != self._painted_keymap:
            self.set_keymap({})  # the painted keymap's keys go (an empty real one sets none)
            self._apply_keymap(real.keymap, real.startup_notes)
        if self.main_screen is not None and self.main_screen.is_attached:
            self.main_screen.start_corrected(real.startup_info())

    def _install_application(self, application: Application) -> None:
        from milk_tui.tui.bridge import BusBridge
        from milk_tui.tui.first_text import FirstTextGate

        self.application = self.view = application
        self.bridge = BusBridge(application, self._deliver)
        self.first_text = FirstTextGate()
        application.pace_first_text(self.first_text.wait)
        self.application_ready.set()

    def on_mount(self) -> None:
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        if self.application is not None:
            self._show_main()
        else:
            self.push_screen(StartupScreen())

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notice, from any screen, as plain inert text: they quote memory and server
        errors, and milk never writes a notice in markup (``Widget.notify`` passes
        ``markup=True`` on every call, so the flag cannot tell)."""
        super().notify(
            inert(message), title=inert(title), severity=severity, timeout=timeout, markup=False
        )

    def on_app_focus(self) -> None:
        """The terminal regained focus: another process may have written meanwhile."""
        if self.main_screen is not None and self.main_screen.is_attached:
            self.main_screen.check_external_changes()

    def on_ready(self) -> None:
        if self.application is None:
            self.run_worker(
                self._load_runtime(), exclusive=True, group="startup", exit_on_error=False
            )

    async def _load_runtime(self) -> None:
        assert self._runtime_factory is not None
        try:
            rt = await asyncio.to_thread(self._runtime_factory)
        except Exception as e:  # noqa: BLE001 — config/storage errors: say why and leave
            self._startup_failed(e)
            return
        from milk_tui.facade.opening import Opening  # loaded by the factory, in its thread

        if isinstance(rt, Opening):
            from milk_tui.tui.widgets import highlight_later  # loaded with the main screen

            highlight_later.defer()  # a resumed session's code: plain on the first frame
            self._opening = rt
            self._install_view(rt)
        else:
            self._install(rt)
        self._show_main()

    def _startup_failed(self, e: Exception) -> None:
        self.startup_error = _describe_startup_error(e)
        gc.enable()
        self.exit(EXIT_STARTUP_FAILED)

    def _show_main(self) -> None:
        from milk_tui.tui.screens.main import MainScreen

        self.main_screen = MainScreen()
        if isinstance(self.screen, StartupScreen):
            self.main_screen.typed_ahead = (self.screen.typed, self.screen.entered)
            self.switch_screen(self.main_screen)
        else:
            self.push_screen(self.main_screen)
        if self.application is not None:
            self._start_application()
        self.call_after_refresh(self._after_first_main_frame)

    def _start_application(self) -> None:
        """The bridge runs; servers start in the background, after a frame."""
        assert self.bridge is not None and self.application is not None
        self.bridge.start()
        self.call_after_refresh(self.application.mcp.start)

    async def _finish_opening(self, opening: Opening) -> None:
        """The second half of start-up, off the loop; then the main screen takes commands."""
        try:
            application = await asyncio.to_thread(opening.finish)
        except Exception as e:  # noqa: BLE001 — an agent that cannot be built: as at start
            if self._opening is opening:  # not a quit that closed the database meanwhile
                self._startup_failed(e)
            return
        if self._opening is not opening:  # the app left meanwhile (on_unmount)
            with contextlib.suppress(Exception):
                await application.aclose()
            return
        self._opening = None
        self._install_application(application)
        if not opening.card_matched:
            self._correct_view(application)
        self._start_application()
        if self.main_screen is not None and self.main_screen.is_attached:
            self.main_screen.application_installed()
        self._warm_up()

    def _after_first_main_frame(self) -> None:
        gc.freeze()
        load_soon()
        if not gc_pace.paused():  # a turn already started holds it until its first text
            gc.enable()
        if self._opening is not None:
            self.run_worker(
                self._finish_opening(self._opening),
                group="startup",
                exclusive=True,
                exit_on_error=False,
            )
        else:
            self._warm_up()

    def _warm_up(self) -> None:
        """Once the application is installed: what no turn should pay for."""
        # The first prompt should find its agent's connection open (fails silently).
        # The function, not a coroutine: a quit before the worker starts leaves nothing unawaited.
        work = self.facade.preconnect
        self.run_worker(work, group="preconnect", exit_on_error=False)  # type: ignore[arg-type]  # WorkType wants Coroutine[None, None, ...]
        remote = self.facade.start_remote
        self.run_worker(remote, group="remote", exit_on_error=False)  # type: ignore[arg-type]  # as above

    async def on_unmount(self) -> None:
        """Every way out ends here (Ctrl+Q, /quit, Ctrl+C twice, the palette's Quit, a crash):
        consolidate if no exit path did yet, then close the agents' connections and the
        database while the app's event loop — the one their clients were opened on — runs."""
        if self.bridge is not None:
            self.bridge.stop()
        if self.main_screen is not None:  # its modules are loaded: plain code ends with the app
            from milk_tui.tui.widgets import highlight_later

            highlight_later.stop()
        opening, self._opening = self._opening, None
        if opening is not None:  # left before the agents were built
            opening.close()
        if self.application is not None:
            await self.shutdown()
            with contextlib.suppress(Exception):
                await self.application.aclose()

    # ----- bus → widgets ----------------------------------------------------------------

    def _deliver(self, batch: list[BusEvent]) -> None:
        main = self.main_screen
        if main is None or not main.is_attached:
            return
        main.handle_bus_events(batch)
        if self.first_text is not None:
            self.first_text.delivered(batch, main)
        from milk_tui.tui.facts.screen import FactsScreen  # loaded with the main screen

        top = self.screen
        if isinstance(top, FactsScreen):
            for e in batch:
                top.handle_bus_event(e)  # the browser keeps the percept events

    def on_fact_browser_jump_to_turn(self, event: FactBrowser.JumpToTurn) -> None:
        """From the full facts screen (it dismisses itself); the conversation shows the turn."""
        if self.main_screen is not None:
            self.main_screen.on_fact_browser_jump_to_turn(event)

    # ----- themes -----------------------------------------------------------------------

    def _theme_changed(self, theme: Any) -> None:
        self.palette = replace(palette_for(theme), colorization=self.palette.colorization)
        self.ui_state.theme = theme.name
        self.ui_state.save()
        if self.main_screen is not None and self.main_screen.is_attached:
            from milk_tui.tui.widgets.conversation import Conversation

            self.main_screen.query_one(Conversation).set_palette(self.palette)

    def set_colorization(self, mode: str) -> None:
        """Draw replies in ``mode`` from now on; the replies on screen are drawn again."""
        if mode == self.palette.colorization:
            return
        self.palette = replace(self.palette, colorization=mode)
        if self.main_screen is not None and self.main_screen.is_attached:
            from milk_tui.tui.widgets.conversation import Conversation

            self.main_screen.query_one(Conversation).set_palette(self.palette)

    def cycle_theme(self) -> None:
        names = sorted(self.available_themes)
        milk = [n for n in names if n.startswith("milk-")]
        order = milk + [n for n in names if n not in milk]
        i = order.index(self.theme) if self.theme in order else -1
        self.theme = order[(i + 1) % len(order)]

    # ----- actions that must work on every screen ---------------------------------------

    def action_interrupt(self) -> None:
        from milk_tui.tui.screens.permission_modal import DENY, PermissionModal
        from milk_tui.tui.screens.shell_screen import ShellScreen

        top = self.screen
        if isinstance(top, ShellScreen):
            top.ctrl_c()  # the child's, not milk's: SIGINT to its foreground group
        elif isinstance(top, PermissionModal):
            # Ctrl+C while asking: the answer is No and the turn stops.
            top.dismiss(DENY)
            if self.main_screen is not None and self.main_screen.facade.busy:
                self.main_screen.action_interrupt()
        elif top is not self.main_screen and isinstance(top, Screen) and top.is_modal:
            top.dismiss(None)
        elif self.main_screen is not None:
            if top is not self.main_screen:
                self.pop_screen()
            self.main_screen.action_interrupt()
        else:
            self.exit(0)

    async def action_quit(self) -> None:
        await self.shutdown()
        self.exit(0)

    async def shutdown(self) -> None:
        """Cancel a running turn and consolidate memory (the session ends); once."""
        if self.shut_down or self.application is None:
            return
        self.shut_down = True
        await self.application.finish()


def _describe_startup_error(e: Exception) -> str:
    from milk_tui.facade.errors import ConfigError, StorageError

    if isinstance(e, ConfigError):
        return f"config error: {e}"
    if isinstance(e, StorageError):
        return f"storage error: {e}"
    return f"could not start: {type(e).__name__}: {e}"
