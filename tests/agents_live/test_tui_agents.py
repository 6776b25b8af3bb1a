"""/agent, /agent switch|escalation|add|remove, /reload and the file watch in the real TUI,
over a real commented config file and two fake OpenAI servers."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Static
from tui.conftest import make_app, settle, type_and_send
from tui.snapshot_base import SnapshotCase, on_screen, send, until

from agents_live.conftest import toml_config
from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.testing.fake_openai import FakeOpenAIServer
from milk_tui.tui.app import MilkApp
from milk_tui.tui.screens.agent_form import AgentForm
from milk_tui.tui.screens.agent_screen import CHECKING, AgentScreen
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.escalation_pane import EscalationPane

Servers = tuple[FakeOpenAIServer, FakeOpenAIServer]


def lines(app: MilkApp, kind: str | None = None) -> list[str]:
    items = app.main_screen.query_one(Conversation).items
    return [it.text for it in items if kind is None or it.kind == kind]


def table_rows(app: Any) -> list[list[str]]:
    table = app.screen.query_one(DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def probed(app: Any) -> bool:
    return isinstance(app.screen, AgentScreen) and all(r[-1] != CHECKING for r in table_rows(app))


def live_app() -> MilkApp:
    return make_app(demo=False)


async def test_agent_screen_lists_roles_and_reachability_and_switches(
    config_file: Path, servers: Servers
) -> None:
    app = live_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await type_and_send(pilot, "/agent")
        await on_screen(AgentScreen)(pilot)
        await until(probed, "every agent probed")(pilot)
        rows = {r[1]: r for r in table_rows(app)}
        assert rows["one"][0] == "P" and rows["one"][2] == "up"
        assert rows["two"][0] == "" and rows["two"][5] == servers[1].url
        assert rows["claude"][0] == "E" and rows["claude"][3] == "claude-cli (built in)"
        await pilot.press("down")  # → two
        await pilot.press("p")
        await until(lambda a: {r[1]: r[0] for r in table_rows(a)}["two"] == "P", "two primary")(
            pilot
        )
        detail = str(app.screen.query_one("#agent-detail", Static).render())
        assert detail.startswith("primary agent: two")
        await pilot.press("down", "e")  # → demo-big as the escalation agent
        await until(lambda a: {r[1]: r[0] for r in table_rows(a)}["demo-big"] == "E", "esc")(pilot)
        await pilot.press("escape")
        await settle(pilot, app)
        assert app.main_screen.query_one(EscalationPane).agent_name == "demo-big"
        await type_and_send(pilot, "hi")
        assert lines(app, "reply")[-1] == "from two"


async def test_switch_escalation_remove_and_reload_commands(
    config_file: Path, servers: Servers
) -> None:
    app = live_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "/agent switch two")
        assert lines(app, "notice")[-1].startswith("primary agent: two")
        await type_and_send(pilot, "/agent switch demo-big as escalation")
        assert lines(app, "notice")[-1].startswith("escalation agent: demo-big")
        await type_and_send(pilot, "/agent escalation nobody")
        assert lines(app, "error")[-1] == (
            "/agent: no agent named 'nobody' (defined: one, two, demo-big, claude)"
        )
        await type_and_send(pilot, "/agent remove one")
        assert lines(app, "notice")[-1] == "config reloaded: agents removed: one"
        assert "# the local one" in config_file.read_text()
        config_file.write_text(config_file.read_text().replace("model-two", "model-2"))
        await type_and_send(pilot, "/reload")
        # (the file watch may have seen the edit first: then /reload finds nothing new)
        assert "config reloaded: agents changed: two (model)" in lines(app, "notice")[-2:]
        await type_and_send(pilot, "/reload")
        assert lines(app, "notice")[-1] == "config reloaded: nothing changed"
        config_file.write_text("agents = [\n")  # cut mid-edit: does not parse
        await type_and_send(pilot, "/reload")
        assert lines(app, "warning")[-1].startswith("config not reloaded, the old one stays: ")
        assert "invalid TOML" in lines(app, "warning")[-1]
        await type_and_send(pilot, "hello")
        assert lines(app, "reply")[-1] == "from two"
        assert servers[1].chat_requests[-1].json["model"] == "model-2"
        config_file.write_text(toml_config(servers[0].url, servers[1].url))  # whole again
        await type_and_send(pilot, "/reload")
        await type_and_send(pilot, "/agent remove two")  # the primary: its slot falls back
        await until(
            lambda a: (
                lines(cast(MilkApp, a), "notice")[-1]
                == "config reloaded: agents removed: two\nprimary agent now: one"
            ),
            "the removal and the fallback",
        )(pilot)
        await type_and_send(pilot, "hello")
        assert lines(app, "reply")[-1] == "from one"
        await type_and_send(pilot, "/agent frobnicate")
        assert lines(app, "error")[-1].startswith("/agent: usage: /agent [list")


async def test_the_file_watch_applies_an_edit(config_file: Path, servers: Servers) -> None:
    app = live_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        config_file.write_text(toml_config(servers[1].url, servers[1].url))
        await until(
            lambda a: any(
                t.startswith("config reloaded: agents changed: one (url)")
                for t in lines(cast(MilkApp, a), "notice")
            ),
            "the watch reloaded",
        )(pilot)
        await type_and_send(pilot, "hello")
        assert lines(app, "reply")[-1] == "from two"


async def test_add_form_validates_then_writes_the_agent(
    config_file: Path, servers: Servers
) -> None:
    app = live_app()
    async with app.run_test(size=(120, 50)) as pilot:
        await type_and_send(pilot, "/agent add")
        await on_screen(AgentForm)(pilot)
        form = app.screen
        form.query_one("#agent-name", Input).value = "three"
        form.query_one("#agent-url", Input).value = "ftp://nowhere"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert (
            str(form.query_one("#error", Static).render())
            == "url: expected an http:// or https:// URL"
        )
        form.query_one("#agent-name", Input).value = "TWO"
        form.query_one("#agent-url", Input).value = servers[0].url
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "exists already" in str(form.query_one("#error", Static).render())
        form.query_one("#agent-name", Input).value = "three"
        form.query_one("#agent-model", Input).value = "m3"
        await pilot.press("ctrl+s")
        await until(
            lambda a: (
                "config reloaded: agents added: three\n/agent switch three runs it as the "
                "primary" in lines(cast(MilkApp, a), "notice")
            ),
            "added",
        )(pilot)
        text = config_file.read_text()
        assert "# my milk config — this comment must survive every edit" in text
        assert f'name = "three"\nurl = "{servers[0].url}"\nmodel = "m3"' in text
        await type_and_send(pilot, "/agent switch three")
        await type_and_send(pilot, "hi")
        assert servers[0].chat_requests[-1].json["model"] == "m3"


def snapshot_app() -> MilkApp:
    agents = [
        AgentConfig(name="local", provider="demo", model="demo-small"),
        AgentConfig(name="big", provider="demo", model="demo-large"),
        AgentConfig(name="remote", provider="local", url="http://127.0.0.1:9", model="qwen3"),
        AgentConfig(name="claude", provider="claude-cli", bin="/nonexistent/claude"),
    ]
    return make_app(
        demo=False, config=MilkConfig(agent="local", escalation_agent="big", agents=agents)
    )


class TestAgentSnapshots(SnapshotCase):
    def test_agent_screen(self) -> None:
        assert self.shot(send("/agent"), on_screen(AgentScreen), until(probed, "probed"),
                         app=snapshot_app())  # fmt: skip

    def test_agent_add_form(self) -> None:
        async def fill(pilot: Pilot[Any]) -> None:
            pilot.app.screen.query_one("#agent-name", Input).value = "mine"
            pilot.app.screen.query_one("#agent-url", Input).value = "not a url"
            await pilot.press("ctrl+s")
            await pilot.pause()

        assert self.shot(send("/agent add"), on_screen(AgentForm), fill, app=snapshot_app(),
                         size=(100, 45))  # fmt: skip

    def test_agent_add_form_80x24(self) -> None:
        """Every label whole and every field on screen with the buttons, at 80×24."""
        assert self.shot(send("/agent add name=mine aws_region=eu-west-1"), on_screen(AgentForm),
                         app=snapshot_app(), size=(80, 24))  # fmt: skip

    def test_agent_add_form_160x45(self) -> None:
        assert self.shot(send("/agent add"), on_screen(AgentForm), app=snapshot_app(),
                         size=(160, 45))  # fmt: skip


async def test_the_agent_flags_reach_the_tui(config_file: Path, servers: Servers) -> None:
    app = make_app(demo=False, agent="two", escalation_agent="demo-big")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        assert app.main_screen.query_one(EscalationPane).agent_name == "demo-big"
        await type_and_send(pilot, "hi")
        assert lines(app, "reply")[-1] == "from two"
        config_file.write_text(config_file.read_text().replace("model-two", "model-2"))
        await type_and_send(pilot, "/reload")  # the run's choice survives a reload
        # (the file watch may have seen the edit first: then /reload finds nothing new)
        assert "config reloaded: agents changed: two (model)" in lines(app, "notice")[-2:]
        await type_and_send(pilot, "hi")
        assert servers[1].chat_requests[-1].json["model"] == "model-2"
