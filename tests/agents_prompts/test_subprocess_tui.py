"""The TUI shows a subprocess agent's reply and its code step (real child process)."""

from __future__ import annotations

from pathlib import Path

from tui.conftest import make_app, type_and_send, until

from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.testing import fake_smolagent
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.tool_line import ToolLine


async def test_a_subprocess_agents_reply_shows(milk_home, tmp_path) -> None:
    cfg = MilkConfig(
        agent="smol",
        escalation_agent="demo",
        agents=[
            AgentConfig(name="smol", provider="subprocess", bin=str(Path(fake_smolagent.__file__))),
            AgentConfig(name="demo", provider="demo"),
        ],
    )
    app = make_app(config=cfg, demo=False, cwd=str(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: bool(app.screen.query(Conversation)))
        await type_and_send(pilot, "list the python files")
        conv = app.main_screen.query_one(Conversation)
        await until(pilot, lambda: any(it.kind == "reply" for it in conv.items))
        replies = [it.text for it in conv.items if it.kind == "reply"]
        assert replies == ["Fake smolagent: list the python files"]
        assert app.runtime.dispatcher.session.history[-1].agent == "primary"
        assert any("python" in str(t.render()) for t in app.screen.query(ToolLine))
