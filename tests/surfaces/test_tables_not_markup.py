"""The ``/mcp`` and ``/agent`` tables hold outside text (server and agent names, a dead
server's stderr, URLs): each cell is the inert text itself, never Rich markup (a ``str``
cell of a ``DataTable`` is parsed as markup: ``[@click=app.quit]`` would be a live action)."""

from __future__ import annotations

from typing import Any, cast

import pytest
from rich.text import Text
from textual.widgets import DataTable
from textual.widgets._data_table import default_cell_formatter  # what the table paints
from tui.conftest import make_app, type_and_send
from tui.snapshot_base import on_screen, until

from milk_tui.config.mcp import McpServerConfig
from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.model.terminal_text import inert
from milk_tui.testing.hostile_text import payload_for
from milk_tui.testing.mcp_peers import START_S, _env
from milk_tui.tui.app import MilkApp
from milk_tui.tui.screens.agent_screen import AgentScreen
from milk_tui.tui.screens.mcp_screen import McpScreen
from milk_tui.tui.widgets.welcome import Welcome

pytestmark = pytest.mark.real_peer

NAME = "srv[@click=app.quit]q[/]" + payload_for("argv")


def cells(app: MilkApp) -> list[str]:
    """Each cell as the table paints it (``str`` cells are read as markup there)."""
    table = app.screen.query_one(DataTable)
    shown = [default_cell_formatter(c) for i in range(table.row_count) for c in table.get_row_at(i)]
    return [r.plain if isinstance(r, Text) else str(r) for r in shown]


async def test_welcome_mcp_and_agent_cells_are_inert_text_not_markup() -> None:
    import sys

    server = McpServerConfig(
        name=NAME, command=sys.executable, args=["-m", "milk_tui.testing.mcp_payload_server", "die"],
        env=_env(), connect_timeout=START_S,
    )  # fmt: skip
    agent = AgentConfig(name="a[b]" + NAME, provider="local", url="http://u:pw@127.0.0.1:9")
    config = MilkConfig(mcp_servers=[server], agents=[agent], agent=agent.name)
    app = make_app(config=config, demo=False)
    async with app.run_test(size=(160, 40)) as pilot:
        welcome = str(app.screen.query_one(Welcome).render())  # a new session's welcome
        assert inert(agent.name) in welcome and "\x1b" not in welcome

        def settled(a: Any) -> bool:
            return "starting" not in [s.state for s in cast(MilkApp, a).facade.mcp.statuses()]

        await until(settled, "the server settled")(pilot)
        await type_and_send(pilot, "/mcp")
        await on_screen(McpScreen)(pilot)
        await pilot.pause()
        shown = cells(app)
        assert shown[0] == inert(NAME)  # the literal text, brackets and all
        assert "down: the process exited; stderr:" in shown[2]
        await pilot.press("escape")
        await type_and_send(pilot, "/agent")
        await on_screen(AgentScreen)(pilot)
        await pilot.pause()
        shown = cells(app)
        assert inert("a[b]" + NAME) in shown and "http://***@127.0.0.1:9" in shown
