"""Snapshots of untrusted text shown inert: a reply and a fact holding escape sequences and
Rich markup (SVGs in snapshots/tui/test_snapshots_terminal_text/)."""

from __future__ import annotations

from typing import Any, cast

from textual.pilot import Pilot

from milk_tui.tui.app import MilkApp
from tui.conftest import settle
from tui.snapshot_base import SnapshotCase, ev, on_screen, press, publish

REPLY = [
    "Set \x1b]0;owned\x07 the ti",
    "tle, \x1b]5",
    "2;c;c25hcA==\x07 the clipboard, \x1b[2J wipe, \x9b31m red,\n\n",
    "a [@click=app.quit]link[/] and [bold magenta]markup[/] stay text.\r\nDone\u202e.",
]
FACT = "likes \x1b]8;;https://e.example\x1b\\links\x1b]8;;\x1b\\ and [reverse]markup[/]\x07"


async def add_fact(pilot: Pilot[Any]) -> None:
    app = cast(MilkApp, pilot.app)
    app.facade.facts.remember(FACT, scope="global")
    app.runtime.bus.publish(ev.StoreChanged())
    await settle(pilot, app)


class TestInertText(SnapshotCase):
    def test_reply_and_fact_with_escape_sequences(self) -> None:
        assert self.shot(
            add_fact,
            publish(
                ev.TurnStarted(prompt="show me \x1b[5mblink\x1b[0m", turn_index=1),
                ev.RouteDecided(target="primary", agent_name="demo-local", reason="short"),
                *(ev.TextDelta(slot="primary", text=t) for t in REPLY),
            ),
        )

    def test_fact_browser_with_escape_sequences(self) -> None:
        from milk_tui.tui.facts.screen import FactsScreen

        assert self.shot(add_fact, press("f6"), on_screen(FactsScreen))
