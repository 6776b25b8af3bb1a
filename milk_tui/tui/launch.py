"""How the program starts the TUI: the opening's options for this run, the app, the exit code
(``milk_tui.cli`` calls ``run_app``)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from milk_tui.model.terminal_text import inert
from milk_tui.tui.app import EXIT_STARTUP_FAILED, MilkApp
from milk_tui.tui.screens.startup import TAIL_TURNS
from milk_tui.tui.widgets import kept_renders

if TYPE_CHECKING:
    from milk_tui.facade.opening import Opening


def run_app(args: argparse.Namespace) -> int:
    """Entry point used by ``milk_tui.cli``; returns the process exit code."""

    def factory() -> Opening:
        from milk_tui.facade.opening import open_application

        kept_renders.use(_kept_renders_file())  # the replies the first frame shows, rendered
        return open_application(
            config_path=getattr(args, "config", None),
            new=bool(getattr(args, "new", False)),
            session_name=getattr(args, "session", "") or "",
            any_folder=bool(getattr(args, "any_folder", False)),
            demo=bool(getattr(args, "demo", False)),
            debug=bool(getattr(args, "debug", False)),
            permission_policy="ask",
            cooperative=True,
            from_card=True,  # paint from the last start's card; the config is read after
            skip_broken_config=True,  # start without a file that does not parse; say so
            probe_later=True,  # with nothing configured: paint first, look for a server after
            history_tail=TAIL_TURNS,  # a long session's older turns: read with the agents
            agent=getattr(args, "agent", "") or "",
            escalation_agent=getattr(args, "escalation_agent", "") or "",
        )

    app = MilkApp(runtime_factory=factory)
    try:
        code = app.run()
    finally:
        if app.application is not None:  # normally closed in on_unmount; a no-op then
            app.application.close_database()
        if app.main_screen is not None:
            kept_renders.save(_kept_renders_file())
    if app.startup_error:
        print(f"milk-tui: {inert(app.startup_error)}", file=sys.stderr)
        return EXIT_STARTUP_FAILED
    if os.environ.get("MILK_TUI_TRACE") and app.bridge is not None:
        print(f"milk-tui: {app.bridge.events_in} events in {app.bridge.frames} frames")
    return int(code or 0)


def _kept_renders_file() -> Path:
    from milk_tui.config.paths import data_dir

    return data_dir() / kept_renders.FILE_NAME
