"""Ctrl+C at any phase of a turn, and the prompt box after a failed or cancelled turn, in the
real TUI (Pilot).

The escalation agent's availability check is a real subprocess (a ``claude`` stand-in that
blocks on a FIFO until the test writes to it): Ctrl+C while it runs must stop the turn with
``[interrupted]``, stop the spinner, kill the probe and give the prompt back selected, so
that what is typed next replaces it instead of being glued onto it.
"""

from __future__ import annotations

import os
from pathlib import Path

from tui.conftest import fake_agent_config, make_app, settle, until

from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.prompt_input import PromptInput
from milk_tui.tui.widgets.status_line import StatusLine


def held_claude(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A ``claude`` whose ``--version`` writes its pid to ``started`` and then waits for a
    line on ``gate`` (the test releases it, or Ctrl+C must kill it)."""
    gate, started = tmp_path / "gate", tmp_path / "started"
    os.mkfifo(gate)
    script = tmp_path / "claude"
    script.write_text(f'#!/bin/sh\necho $$ > "{started}"\nread line < "{gate}"\nexit 0\n')
    script.chmod(0o755)
    return script, gate, started


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); its state letter says it is gone.
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(")")[-1].split()[0] != "Z"


async def test_ctrl_c_while_the_escalation_agent_is_checked_stops_the_turn(
    tmp_path: Path,
) -> None:
    script, _gate, started = held_claude(tmp_path)
    with FakeOpenAIServer() as srv:
        cfg = MilkConfig(
            agent="cheap",
            escalation_agent="claude",
            agents=[
                AgentConfig(name="cheap", provider="local", url=srv.url, model="m"),
                AgentConfig(name="claude", provider="claude-cli", bin=str(script)),
            ],
        )
        app = make_app(config=cfg, demo=False, cwd=str(tmp_path))
        async with app.run_test(size=(120, 40)) as pilot:
            box = app.main_screen.query_one(PromptInput)
            box.set_text("/escalate why is the build red")
            await pilot.press("enter")
            await until(pilot, started.exists)
            assert started.exists(), "the availability probe never started"
            await until(pilot, lambda: started.read_text().strip() != "")
            probe_pid = int(started.read_text())
            assert app.facade.busy
            assert app.main_screen.query_one(StatusLine).model.turn.busy

            await pilot.press("ctrl+c")
            await settle(pilot, app)
            await until(pilot, lambda: not alive(probe_pid))

            assert not app.facade.busy
            assert not app.main_screen.query_one(StatusLine).model.turn.busy, "spinner"
            items = app.main_screen.query_one(Conversation).items
            assert items[-1].kind == "notice" and items[-1].text == "[interrupted]", [
                (i.kind, i.text) for i in items[-3:]
            ]
            assert not alive(probe_pid), "the probe outlived the cancelled turn"
            assert box.text == "/escalate why is the build red"
            assert box.selected_text == box.text, "the prompt comes back selected"

            # What is typed next replaces it: never "/escalate why…/agent".
            await pilot.press(*"/think")
            await until(pilot, lambda: box.text == "/think")
            assert box.text == "/think"
            assert app.runtime.dispatcher.session.history == []


async def test_a_failed_prompt_comes_back_selected_and_typing_replaces_it() -> None:
    with FakeOpenAIServer() as srv:
        srv.enqueue(FakeReply(status=400, error_body="boom"))
        app = make_app(config=fake_agent_config(srv.url), demo=False)
        async with app.run_test(size=(80, 24)) as pilot:
            box = app.main_screen.query_one(PromptInput)
            box.set_text("hi")
            await pilot.press("enter")
            await settle(pilot, app)
            await until(pilot, lambda: box.text == "hi")
            assert box.text == "hi" and box.selected_text == "hi"
            # Keys in a burst, as a fast typist sends them after the error line.
            await pilot.press(*"/agent")
            await until(pilot, lambda: box.text == "/agent")
            assert box.text == "/agent", "typed text glued onto the failed prompt"
            await pilot.press("up")  # the failed prompt is still in the history
            await until(pilot, lambda: box.text == "hi")
            assert box.text == "hi"


async def test_ctrl_c_before_the_agents_exist_drops_the_waiting_enter(tmp_path: Path) -> None:
    """Enter in the first instants waits for the agents; Ctrl+C meanwhile must stop that
    prompt from being sent once they are built, and keep its text in the box."""
    from tui.test_two_part_startup import HeldOpening

    from milk_tui.tui.app import MilkApp

    held = HeldOpening(tmp_path)
    app = MilkApp(runtime_factory=held)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, held.finish_started.is_set)
        screen = app.screen
        status = screen.query_one(StatusLine)
        await pilot.press(*"hello", "enter")
        await until(pilot, lambda: "starting the agents" in status.model.turn.hint)
        assert "starting the agents" in status.model.turn.hint
        await pilot.press("ctrl+c")
        await until(pilot, lambda: "starting the agents" not in status.model.turn.hint)
        held.release.set()
        await until(pilot, lambda: app.application is not None)
        await settle(pilot, app)
        assert app.runtime.session.history == [], "the cancelled Enter was sent anyway"
        assert screen.query_one(PromptInput).text == "hello"
