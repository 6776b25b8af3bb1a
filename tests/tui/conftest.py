"""Fixtures for the app tests: a deterministic MilkApp on the demo agents.

Deterministic means: MILK_HOME per test and MILK_DEMO_PACE=0 (top-level conftest), a fixed
cwd and session name (the header shows both), a pinned timeline clock and fact clock, no
cursor blink, and the dark milk theme unless a test asks otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pytest_textual_snapshot import SVGImageExtension
from syrupy import SnapshotAssertion

from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.facade.application import start
from milk_tui.testing.waits import until as until  # the suite's one wait, re-exported
from milk_tui.tui.app import MilkApp
from milk_tui.tui.facts.browser import FactBrowser
from milk_tui.tui.ui_state import UIState
from milk_tui.tui.widgets import block_queue, escalation_pane, open_block
from milk_tui.tui.widgets.prompt_input import PromptInput
from milk_tui.tui.widgets.status_line import StatusLine
from milk_tui.tui.widgets.tool_line import ToolLine

SNAP_CWD = "/tmp/milk-snap/project"
SNAP_SESSION = "snapshot"
FIXED_NOW = 1767225600.0
"""2026-01-01T00:00:00Z."""


@pytest.fixture(autouse=True)
def _pinned_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(escalation_pane, "stamp", lambda: "12:00:00 ")
    monkeypatch.setattr(StatusLine, "spin", False)
    monkeypatch.setattr(ToolLine, "spin", False)
    # Time budgets decide what a streaming reply renders now and what waits: pinned off so
    # that a loaded machine does not change a snapshot (sizes still decide).
    monkeypatch.setattr(open_block, "OPEN_BUDGET_S", float("inf"))
    monkeypatch.setattr(block_queue, "SYNC_BUDGET_S", float("inf"))


def make_app(
    *,
    theme: str = "milk-dark",
    session: str = SNAP_SESSION,
    show_thinking: bool = False,
    cwd: str = SNAP_CWD,
    **runtime_kw: Any,
) -> MilkApp:
    kw: dict[str, Any] = {"demo": True, **runtime_kw}
    application = start(cwd=cwd, session_name=session, cooperative=True, **kw)
    return MilkApp(
        application,
        ui_state=UIState(theme=theme, show_thinking=show_thinking),
        fact_clock=lambda: FIXED_NOW,
    )


@pytest.fixture
def app_factory() -> Callable[..., MilkApp]:
    return make_app


async def settle(pilot: Any, app: MilkApp) -> None:
    """Wait until no turn runs and the bridge has delivered everything (no fixed sleeps);
    fails, naming what it waited for, if a turn is still running at the deadline."""
    await pilot.pause()
    await until(pilot, lambda: not app.facade.busy, what="the running turn to end")
    app.bridge.flush()
    await pilot.pause()
    await pilot.pause()
    # A fact change repaints the facts pane after a coalescing timer: wait for it to land.
    await until(
        pilot,
        lambda: not any(b.refresh_pending for b in app.screen.query(FactBrowser)),
        what="the facts pane's pending repaint",
    )


def no_blink(app: MilkApp) -> None:
    for ta in app.screen.query(PromptInput):
        ta.cursor_blink = False


async def type_and_send(pilot: Any, text: str) -> None:
    app = pilot.app
    box = app.screen.query_one(PromptInput)
    box.set_text(text)
    await pilot.press("enter")
    await settle(pilot, app)


# ----- snapshots kept in <repo>/snapshots/tui/ ----------------------------------------------

SNAPSHOT_DIR = Path(__file__).resolve().parents[2] / "snapshots" / "tui"


class RootedSVGExtension(SVGImageExtension):
    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        return str(SNAPSHOT_DIR / Path(test_location.filepath).stem)


@pytest.fixture
def snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    """``snap_compare`` switches to its own SVG extension; hand it ours, rooted at snapshots/."""
    rooted = snapshot.use_extension(RootedSVGExtension)
    rooted.use_extension = lambda extension_class=None: rooted  # type: ignore[method-assign]
    return rooted


def fake_agent_config(url: str, **extra: Any) -> MilkConfig:
    """One OpenAI-compatible agent "fake" at ``url`` as both primary and escalation: the
    set-up of every TUI test that scripts a fake server."""
    agent = AgentConfig(name="fake", provider="local", url=url, model="m")
    return MilkConfig(agent="fake", escalation_agent="fake", agents=[agent], **extra)
