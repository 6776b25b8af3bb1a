"""Snapshots of the app on the demo agents (SVGs in snapshots/tui/).

Update with ``pytest tests/tui/test_snapshots.py --snapshot-update`` and LOOK at the SVGs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.pilot import Pilot

from milk_tui.model import events as ev
from tui.conftest import make_app, no_blink, settle, type_and_send

SNAP_HOME = Path("/tmp/milk-snap/home")
"""The welcome view prints the config path: a per-test tmp dir would never match."""


@pytest.fixture(autouse=True)
def _fixed_home(milk_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.rmtree(SNAP_HOME, ignore_errors=True)
    SNAP_HOME.mkdir(parents=True)
    monkeypatch.setenv("MILK_HOME", str(SNAP_HOME))


async def _idle(pilot: Pilot) -> None:
    no_blink(pilot.app)  # type: ignore[arg-type]
    await pilot.pause()


def test_welcome(snap_compare) -> None:
    assert snap_compare(make_app(), terminal_size=(120, 40), run_before=_idle)


def test_welcome_80x24(snap_compare) -> None:
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_idle)


async def _mid_stream(pilot: Pilot) -> None:
    """A reply half-way: events published on the bus exactly as the dispatcher would."""
    app = pilot.app
    no_blink(app)  # type: ignore[arg-type]
    bus = app.runtime.bus  # type: ignore[attr-defined]
    bus.publish(ev.TurnStarted(prompt="how do I stream markdown efficiently?", turn_index=1))
    bus.publish(
        ev.RouteDecided(
            target="primary", agent_name="demo-local", reason="short question", rule="short_prompt"
        )
    )
    bus.publish(ev.StateChanged(state="LOCAL", previous="ROUTING"))
    for piece in [
        "Render **finished** blocks once.\n\n",
        "- keep the open block ",
        "cheap\n",
        "- coalesce frames\n\n",
        "```python\nstream.write(",
        "chunk)\n```\n\n",
        "Only the tail block is still chang",
    ]:
        bus.publish(ev.TextDelta(slot="primary", text=piece))
    app.bridge.flush()  # type: ignore[attr-defined]
    await pilot.pause()
    await pilot.pause()


def test_reply_mid_stream(snap_compare) -> None:
    assert snap_compare(make_app(), terminal_size=(120, 40), run_before=_mid_stream)


async def _downgraded_handoff(pilot: Pilot) -> None:
    """Escalate, go back to the primary on a new goal, escalate again: the returning
    hand-off is downgraded to a fresh start because the need changed."""
    app = pilot.app
    no_blink(app)  # type: ignore[arg-type]
    await type_and_send(pilot, "/escalate fix the flaky test")
    await type_and_send(pilot, "/primary what is a monad?")
    await type_and_send(pilot, "/escalate now refactor the parser")
    await settle(pilot, app)  # type: ignore[arg-type]


def test_handoff_downgraded_to_fresh_start(snap_compare) -> None:
    assert snap_compare(make_app(), terminal_size=(130, 48), run_before=_downgraded_handoff)


async def _stale_need(pilot: Pilot) -> None:
    app = pilot.app
    no_blink(app)  # type: ignore[arg-type]
    await type_and_send(pilot, "refactor the parser")  # primary hands over; need ages 2 turns
    await settle(pilot, app)  # type: ignore[arg-type]


def test_stale_need_label(snap_compare) -> None:
    assert snap_compare(make_app(), terminal_size=(120, 40), run_before=_stale_need)


async def _one_turn(pilot: Pilot) -> None:
    app = pilot.app
    no_blink(app)  # type: ignore[arg-type]
    await type_and_send(pilot, "what is a monad?")


def test_turn_80x24(snap_compare) -> None:
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_one_turn)


def test_light_theme(snap_compare) -> None:
    assert snap_compare(
        make_app(theme="milk-light"), terminal_size=(120, 40), run_before=_stale_need
    )
