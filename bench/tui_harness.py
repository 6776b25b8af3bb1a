"""Shared set-up for the TUI benchmarks: a MilkApp on a temp MILK_HOME whose primary agent
is the OpenAI-compatible agent pointed at the local fake server (real SSE over loopback)."""

from __future__ import annotations

import os
import tempfile
import time

from milk_tui.config.settings import AgentConfig, MilkConfig


def temp_home() -> str:
    home = tempfile.mkdtemp(prefix="milk-bench-")
    os.environ["MILK_HOME"] = home
    os.environ["MILK_DEMO_PACE"] = "0"
    return home


def fake_config(url: str) -> MilkConfig:
    return MilkConfig(
        agent="fake",
        escalation_agent="demo-claude",
        agents=[
            AgentConfig(name="fake", provider="local", url=url, model="fake-model"),
            AgentConfig(name="demo-claude", provider="demo", model="demo-large"),
        ],
    )


def build_app(url: str | None, cwd: str = "/tmp/milk-bench-project", new: bool = True):  # type: ignore[no-untyped-def]
    from milk_tui.facade.application import start
    from milk_tui.tui.app import MilkApp
    from milk_tui.tui.ui_state import UIState

    cfg = fake_config(url) if url else None
    application = start(cwd=cwd, new=new, config=cfg, demo=url is None, cooperative=True)
    return MilkApp(application, ui_state=UIState(theme="milk-dark"))


class Clock:
    def __init__(self) -> None:
        self.t0 = time.perf_counter()

    def __call__(self) -> float:
        return time.perf_counter() - self.t0
