"""The real TUI as ``milk-tui ARGS`` starts it (``cli.main`` → ``tui/launch.run_app`` → the
opening's factory), driven through Textual's Pilot instead of a terminal: ``drive`` swaps
the app class ``run_app`` builds for one whose ``run`` runs ``script`` under ``run_test``."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from milk_tui import cli
from milk_tui.tui import launch
from milk_tui.tui.app import MilkApp
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.prompt_input import PromptInput

Script = Callable[[Any, MilkApp], Awaitable[None]]


async def until(pilot: Any, done: Callable[[], Any], what: str, timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not done():
        if loop.time() > end:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        await pilot.pause(0.05)


async def ready(pilot: Any, app: MilkApp) -> None:
    """The application is built and the main screen shows the session."""
    await until(
        pilot,
        lambda: app.application is not None and app.main_screen is not None,
        "the application and its main screen",
    )


def transcript(app: MilkApp) -> str:
    assert app.main_screen is not None
    return "\n".join(it.text for it in app.main_screen.query_one(Conversation).items)


async def send(pilot: Any, app: MilkApp, text: str) -> None:
    """Type ``text`` and Enter; return once its turn is committed."""
    done: list[str] = []
    app.facade.add_listener(lambda e: done.append(e.type) if e.type == "turn_completed" else None)
    assert app.main_screen is not None
    app.main_screen.query_one(PromptInput).set_text(text)
    await pilot.press("enter")
    await until(pilot, lambda: done and not app.facade.busy, f"the turn of {text!r} to complete")


def drive(monkeypatch: pytest.MonkeyPatch, argv: list[str], script: Script) -> int:
    """``milk-tui *argv`` in the current folder with ``script`` as the user; its exit code."""
    failure: list[BaseException] = []

    class Driven(MilkApp):
        def run(self, *a: Any, **kw: Any) -> Any:  # type: ignore[override]  # Pilot, not a tty
            async def main() -> None:
                async with self.run_test(size=(120, 40)) as pilot:
                    try:
                        await ready(pilot, self)
                        await script(pilot, self)
                    except BaseException as e:  # re-raised outside Textual's loop
                        failure.append(e)
                    await self.action_quit()

            asyncio.run(main())
            return 0

    monkeypatch.setattr(launch, "MilkApp", Driven)
    code = cli.main(argv)
    if failure:
        raise failure[0]
    return code
