"""The version: /update, /update check, and the once-a-day notice after the first frame.

milk-tui never replaces itself: the tool that installed it upgrades it (pipx, uv, pip), and
``/update`` says how (facade/update_check.py).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from milk_tui.facade.update_check import HOW, cached, check, installed_version
from milk_tui.tui.slash.base import SlashGroup

if TYPE_CHECKING:
    from milk_tui.tui.screens.main import MainScreen

UPDATE_USAGE = "usage: /update [check]  (milk-tui never replaces itself: " + HOW + ")"


def check_soon(screen: MainScreen, *, headless_too: bool = False) -> None:
    """Start the daily check in a worker: it never delays a frame or a key, and says one
    line only when PyPI names a newer version.  A headless app (the test driver) skips it
    unless told, so a test run never asks the network."""
    url = screen.facade.update_url
    if not url or (screen.app.is_headless and not headless_too):
        return

    async def run() -> None:
        state = await asyncio.to_thread(check, url)
        if state is not None and state.available:
            UpdateCommands(screen).say(state.line())

    screen.run_worker(run(), group="update-check", exclusive=True)


class UpdateCommands(SlashGroup):
    async def cmd_update(self, arg: str) -> None:
        verb = arg.strip().lower()
        if verb not in ("", "check"):
            raise ValueError(UPDATE_USAGE)
        if verb == "check":
            url = self.facade.update_url or "https://pypi.org/pypi/milk-tui/json"
            state = await asyncio.to_thread(check, url, force=True)
            if state is None:
                self.say(f"could not ask {url} (offline?); you have milk-tui "
                         f"{installed_version()}", "warning")  # fmt: skip
                return
        else:
            state = cached()
        if state.available:
            self.say(state.line())
        elif state.latest:
            self.say(f"milk-tui {state.current} is the newest (PyPI: {state.latest}); "
                     f"to upgrade later: {HOW}")  # fmt: skip
        else:
            self.say(f"milk-tui {state.current}; /update check asks PyPI now; to upgrade: {HOW}")
