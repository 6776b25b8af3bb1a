"""The one base for every SVG snapshot test: subclass ``SnapshotCase`` and write
``assert self.shot(step, step, …)``; the SVGs live under ``snapshots/`` (the ``snapshot``
fixture of ``tests/tui/conftest.py`` and ``tests/tui_facts/conftest.py`` roots them there).

Determinism rules — every snapshot obeys them, so an SVG changes only when the screen does:

1. Fixed clock.  ``time.time()`` returns ``FIXED_NOW`` (2026-01-01T00:00:00Z) for the whole
   test, and every ``clock=`` parameter of a ``milk_tui.tui`` class that defaults to the wall
   clock defaults to the fixed one, so ages ("0s", "5m") and "used" columns never drift.
   The escalation pane's time stamp is pinned by ``tests/tui/conftest.py``.
2. Fixed session ids and cwd.  ``uuid.uuid4()`` counts up from ``5e55104d-…-000000000001``;
   the app's folder is ``SNAP_CWD`` and its session is named ``SNAP_SESSION``.
3. Fixed paths.  ``MILK_HOME`` is a fresh folder per test (parallel runs never share a
   database) and is never shown; the one path the app prints from it, the config file, is
   pinned with ``MILK_CONFIG`` to the empty file ``SNAP_CONFIG``.  ``HOME`` points to a
   per-test folder so that no shown path is shortened to ``~``.
4. No blinking cursor.  Every ``TextArea`` and ``Input`` on every screen stops blinking
   before the shot (its cursor stays drawn, solid).  Toasts expire on the wall clock, so
   they are cleared before the shot unless a test keeps them (``keep_toasts=True``).
5. Deterministic spinners.  The status line's and running tool calls' spinners stay on
   their first frame (``StatusLine.spin`` and ``ToolLine.spin`` are False, set by
   ``tests/tui/conftest.py``).
6. Fixed terminal size: ``MAIN`` (120×40) unless a test asks for ``SMALL`` (80×24),
   ``LARGE`` (200×50) or another size on purpose.
7. Theme pinned: ``milk-dark`` unless the test names another; the UI state is passed in,
   never read from disk.  ``NO_COLOR``/``FORCE_COLOR`` are unset and Textual's filters,
   colour system and animation level are reset, whatever the terminal's environment says.
8. Scripted agents with fixed text: the demo agents (replies are a function of the prompt,
   ``MILK_DEMO_PACE=0``), or bus events published exactly as the dispatcher would
   (``publish``).  Steps wait on conditions (``settle``, ``until``), never on guessed sleeps.
9. No network: connecting an IPv4/IPv6 socket raises ``OSError``.

Snapshots of the whole app live under ``tests/tui/`` (whose conftest pins rules 1 and 5 for
the panes); ``tests/tui_facts/`` shoots the fact browser on its ``Host``.  A step is
``async (pilot) -> None``; ``press``, ``send``, ``publish``, ``until`` and ``on_screen`` make
the common ones, so a new snapshot is a few lines::

    class TestHelp(SnapshotCase):
        def test_help_80x24(self) -> None:
            assert self.shot(press("f1"), size=SMALL)
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import socket
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
import textual.constants
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

import milk_tui.tui
from milk_tui.model import events as ev
from milk_tui.testing.waits import describe
from milk_tui.testing.waits import until as wait
from milk_tui.tui.app import MilkApp
from tui.conftest import FIXED_NOW, SNAP_CWD, SNAP_SESSION, make_app, settle, type_and_send

__all__ = [
    "FIXED_NOW",
    "LARGE",
    "MAIN",
    "SMALL",
    "SNAP_CWD",
    "SNAP_SESSION",
    "SnapshotCase",
    "ev",
    "press",
    "publish",
    "send",
    "on_screen",
    "until",
]

MAIN = (120, 40)
SMALL = (80, 24)
LARGE = (200, 50)
SNAP_CONFIG = Path("/tmp/milk-snap/home/config.toml")
"""Shown on the welcome view; one fixed, empty file for every test and worker."""
SNAP_IDS = "5e55104d-0000-4000-8000-{:012x}"

Step = Callable[[Pilot[Any]], Awaitable[None]]


# ----- steps ------------------------------------------------------------------------------


def press(*keys: str) -> Step:
    """Key presses, then a pause so that the screen they open has mounted."""

    async def step(pilot: Pilot[Any]) -> None:
        await pilot.press(*keys)
        await pilot.pause()

    return step


def send(*prompts: str) -> Step:
    """Type each prompt (or slash command) into the input and send it; wait for the turn."""

    async def step(pilot: Pilot[Any]) -> None:
        for prompt in prompts:
            await type_and_send(pilot, prompt)

    return step


def publish(*events: ev.BusEvent) -> Step:
    """Publish bus events as the dispatcher would, then wait until the panes drew them."""

    async def step(pilot: Pilot[Any]) -> None:
        app = cast(MilkApp, pilot.app)
        for e in events:
            app.runtime.bus.publish(e)
        await settle(pilot, app)

    return step


def until(predicate: Callable[[App[Any]], bool], what: str = "") -> Step:
    """Let the app run until ``predicate(app)`` holds (workers, debounced searches …)."""

    async def step(pilot: Pilot[Any]) -> None:
        await wait(pilot, lambda: predicate(pilot.app), what=what or describe(predicate))
        await pilot.pause()

    return step


def on_screen(kind: type) -> Step:
    """Wait until a screen of this class is on top (modals pushed from a bus event …)."""
    return until(lambda app: isinstance(app.screen, kind), f"{kind.__name__} on top")


async def steady(pilot: Pilot[Any], *, keep_toasts: bool = False) -> None:
    """Rules 4 and 8: no turn running, workers done, focus given, cursors solid, toasts
    gone."""
    app = pilot.app
    if isinstance(app, MilkApp) and app.runtime is not None:
        await settle(pilot, app)
    await app.workers.wait_for_complete()
    # A screen just pushed gives its focus a moment later (after its mount): on a busy
    # machine the shot could otherwise be taken with no cursor drawn yet.
    await wait(
        pilot,
        lambda: app.screen.focused is not None or not app.screen.focus_chain,
        what=f"{type(app.screen).__name__} to give its focus",
    )
    for screen in app.screen_stack:
        for widget in screen.query("TextArea, Input"):
            if isinstance(widget, TextArea | Input):
                widget.cursor_blink = False
    if not keep_toasts:
        app.clear_notifications()
    await pilot.pause()


# ----- the pinned environment -------------------------------------------------------------


def _fixed_clock() -> float:
    return FIXED_NOW


def _tui_classes() -> Iterator[type]:
    for info in pkgutil.walk_packages(milk_tui.tui.__path__, "milk_tui.tui."):
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if inspect.isclass(obj) and obj.__module__ == module.__name__:
                yield obj


def _pin_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    wall = time.time
    monkeypatch.setattr(time, "time", _fixed_clock)
    for cls in _tui_classes():
        init = cls.__dict__.get("__init__")
        kwdefaults = getattr(init, "__kwdefaults__", None) or {}
        if kwdefaults.get("clock") is wall:
            monkeypatch.setitem(kwdefaults, "clock", _fixed_clock)


def _pin_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = iter(range(1, 1 << 40))
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(SNAP_IDS.format(next(counter))))


def _pin_paths(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    SNAP_CONFIG.parent.mkdir(parents=True, exist_ok=True)
    scratch = SNAP_CONFIG.with_name(f".config.{os.getpid()}.tmp")
    scratch.write_text("", encoding="utf-8")
    os.replace(scratch, SNAP_CONFIG)  # atomic: a parallel worker never reads a half file
    monkeypatch.setenv("MILK_CONFIG", str(SNAP_CONFIG))
    home = tmp_path / "user-home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    for name in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES"):
        monkeypatch.delenv(name, raising=False)
    # Textual read its TEXTUAL_* variables at import; these three reach every new App.
    monkeypatch.setattr(textual.constants, "FILTERS", "")
    monkeypatch.setattr(textual.constants, "COLOR_SYSTEM", "auto")
    monkeypatch.setattr(textual.constants, "TEXTUAL_ANIMATIONS", "full")


def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(sock: socket.socket, *args: Any, **kwargs: Any) -> Any:
        raise OSError("snapshot tests run offline")

    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def connect(sock: socket.socket, address: Any) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            refuse(sock)
        real_connect(sock, address)

    def connect_ex(sock: socket.socket, address: Any) -> int:
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            refuse(sock)
        return real_connect_ex(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)


# ----- the base class ---------------------------------------------------------------------


class SnapshotCase:
    """Base of every snapshot test class; see the module docstring for the rules it pins."""

    @pytest.fixture(autouse=True)
    def _pinned(
        self, snap_compare: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, milk_home: Path
    ) -> None:
        _pin_clock(monkeypatch)
        _pin_ids(monkeypatch)
        _pin_paths(monkeypatch, tmp_path)
        _offline(monkeypatch)
        self._compare = snap_compare

    def shot(
        self,
        *steps: Step,
        app: App[Any] | None = None,
        size: tuple[int, int] = MAIN,
        theme: str = "milk-dark",
        show_thinking: bool = False,
        keep_toasts: bool = False,
    ) -> bool:
        """Run the steps on ``app`` (default: the demo app), steady it, compare the SVG."""
        target = app if app is not None else make_app(theme=theme, show_thinking=show_thinking)

        async def run_before(pilot: Pilot[Any]) -> None:
            await steady(pilot)
            for step in steps:
                await step(pilot)
            await steady(pilot, keep_toasts=keep_toasts)

        return bool(self._compare(target, terminal_size=size, run_before=run_before))
