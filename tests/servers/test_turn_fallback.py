"""A turn whose agent's run_cmd fails: one ServerFailed line, the turn falls back to the
other agent, the session keeps its history; and a turn on a working run_cmd records the
reply of the server it started."""

from __future__ import annotations

from pathlib import Path

from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.facade.application import start
from milk_tui.model import events as ev
from servers.peers import agent, fake_cmd, free_port

DEMO = AgentConfig(name="big", provider="demo", model="demo-large")


def config(smol: AgentConfig) -> MilkConfig:
    return MilkConfig(agent="smol", escalation_agent="big", agents=[smol, DEMO])


async def test_failed_run_cmd_falls_back_and_keeps_the_session(milk_home: Path) -> None:
    app = start(cwd=str(milk_home), config=config(agent("smol", free_port(), "exit 3")), new=True)
    seen: list[ev.BusEvent] = []
    app.add_listener(seen.append)
    try:
        result = await app.run_turn("hello")
        assert result.ok
        failed = [e.error for e in seen if isinstance(e, ev.ServerFailed)]
        assert failed == ["agent 'smol': run_cmd exited with code 3"]
        notices = [e.message for e in seen if isinstance(e, ev.Notice)]
        assert any("using escalation agent 'big' instead" in n for n in notices), notices
        assert [t.role for t in app.history()] == ["user", "assistant"]
        assert app.history()[-1].agent_name == "big"
    finally:
        await app.aclose()


async def test_turn_goes_on_with_the_started_server(milk_home: Path) -> None:
    port = free_port()
    app = start(cwd=str(milk_home), config=config(agent("smol", port, fake_cmd(port))), new=True)
    seen: list[ev.BusEvent] = []
    app.add_listener(seen.append)
    try:
        result = await app.run_turn("hello", force="primary")
        assert result.ok and result.text == "Hello from the fake."
        assert app.history()[-1].agent_name == "smol"
        order = [e.type for e in seen if e.type.startswith(("server_", "route_", "turn_"))]
        assert order[:2] == ["turn_started", "server_starting"]
        assert order.index("server_ready") < order.index("route_decided")
    finally:
        await app.aclose()
    assert (await app.servers.status())[0].state == "down"  # stopped with the session
