"""A new user's hour with agents (issue 25, items 1, 7, 9): nothing configured, a local
server found on its port, the Claude CLI not installed.  Adding a broken agent, removing
the one that runs, agent switches and the routing pin kept with the session, a one-off
``/escalate PROMPT`` — in the real TUI (Pilot at 80×24) and through the facade."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import pytest
from textual.widgets import Input, Static
from tui.conftest import settle, type_and_send
from tui.snapshot_base import on_screen, until

from milk_tui.engine import boot
from milk_tui.facade.application import start
from milk_tui.facade.opening import Opening, open_application
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.tui.app import MilkApp
from milk_tui.tui.screens.agent_form import AgentForm
from milk_tui.tui.screens.main import MainScreen
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.escalation_pane import EscalationPane

from .conftest import toml_config

NOBODY = "http://127.0.0.1:9"  # the discard port: nothing answers there


def lines(app: MilkApp, kind: str | None = None) -> list[str]:
    items = app.main_screen.query_one(Conversation).items
    return [it.text for it in items if kind is None or it.kind == kind]


@pytest.fixture
def found(monkeypatch: pytest.MonkeyPatch, milk_home: Path, tmp_path: Path) -> Any:
    """A llama.cpp-like server on "its port" and no ``claude`` on PATH."""
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["from ", "the ", "server"])
        monkeypatch.setattr(boot, "LOCAL_SERVER_PROBES", (("llama.cpp", srv.url),))
        yield srv


def found_app(cwd: Path) -> MilkApp:
    """The TUI as ``milk-tui`` starts it: painted first, the server looked for after."""

    def factory() -> Opening:
        return open_application(cwd=str(cwd), cooperative=True, probe_later=True)

    return MilkApp(runtime_factory=factory)


async def ready(pilot: Any, app: MilkApp) -> None:
    await until(lambda a: isinstance(a.screen, MainScreen) and a.application, "ready")(pilot)
    await settle(pilot, app)


def pane_text(app: MilkApp) -> str:
    return str(app.main_screen.query_one("#esc-body", Static).render())


async def test_a_broken_agent_is_refused_then_saved_only_when_insisted_and_never_primary(
    found: FakeOpenAIServer, milk_home: Path, tmp_path: Path
) -> None:
    app = found_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, app)
        # Item 7: the pane names the agent in use and says it cannot run.
        assert pane_text(app).splitlines()[0] == "claude  'claude' not found"
        assert app.main_screen.query_one(EscalationPane).agent_name == "claude"
        await type_and_send(pilot, "/agent add name=bad provider=http://127.0.0.1:9 max_tokens=64")
        await on_screen(AgentForm)(pilot)
        form = app.screen
        await pilot.press("ctrl+s")
        error = form.query_one("#error", Static)
        assert str(error.render()) == (
            "provider: 'http://127.0.0.1:9' looks like an address; it goes in url "
            "(provider is a name)"
        )
        form.query_one("#agent-provider", Input).value = "local"
        form.query_one("#agent-url", Input).value = NOBODY
        await pilot.press("ctrl+s")
        await until(lambda a: "bad: down" in str(form.query_one("#status", Static).render()),
                    "the probe's answer")(pilot)  # fmt: skip
        assert "saves it anyway" in str(error.render())
        assert not (milk_home / "config.toml").exists()  # nothing saved yet
        await pilot.press("ctrl+s")  # the user insists
        await until(lambda a: isinstance(a.screen, MainScreen), "the form closed")(pilot)
        await until(
            lambda a: any("agents added: bad" in t for t in lines(cast(MilkApp, a), "notice")),
            "the added notice",
        )(pilot)
        text = (milk_home / "config.toml").read_text()
        assert 'name = "bad"' in text and "max_tokens = 64" in text
        assert lines(app, "notice")[-1].endswith("/agent switch bad runs it as the primary")
        await type_and_send(pilot, "hello")
        assert lines(app, "reply")[-1] == "from the server"  # the server found still answers
        assert app.runtime.dispatcher.primary is not None
        assert app.runtime.dispatcher.primary.name == "llama.cpp"


async def test_removing_the_running_agent_falls_back_to_the_server_found(
    found: FakeOpenAIServer, milk_home: Path, tmp_path: Path
) -> None:
    with FakeOpenAIServer() as mine:
        mine.default_reply = FakeReply(text=["from mine"])
        (milk_home / "config.toml").write_text(
            f'agent = "mine"\n[[agents]]\nname = "mine"\nurl = "{mine.url}"\n'
        )
        app = found_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await ready(pilot, app)
            await type_and_send(pilot, "hi")
            assert lines(app, "reply")[-1] == "from mine"
            await type_and_send(pilot, "/agent remove mine")  # the only agent, the primary
            await until(
                lambda a: lines(cast(MilkApp, a), "notice")[-1].endswith(
                    f"primary agent now: the llama.cpp server at {found.url}"
                ),
                "the fallback",
            )(pilot)
            assert "mine" not in (milk_home / "config.toml").read_text()  # and its selector
            await type_and_send(pilot, "hi again")
            assert lines(app, "reply")[-1] == "from the server"


async def test_every_agent_key_is_settable_and_an_unknown_one_is_named(
    found: FakeOpenAIServer, milk_home: Path, tmp_path: Path
) -> None:
    app = found_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, app)
        await type_and_send(pilot, "/agent add name=x aws_region=eu-west-1 frob=1")
        assert lines(app, "error")[-1].startswith("/agent: add: unknown agent key frob (keys: ")
        cmd = f"/agent add name=x url={found.url} aws_region=eu-west-1 run_cmd='llama-server -m a'"
        await type_and_send(pilot, cmd)
        await on_screen(AgentForm)(pilot)
        more = app.screen.query_one("#agent-more", Input).value
        assert more == "aws_region=eu-west-1 run_cmd='llama-server -m a'"
        await pilot.press("ctrl+s")  # it answers: saved at once
        await until(lambda a: isinstance(a.screen, MainScreen), "saved")(pilot)
        text = (milk_home / "config.toml").read_text()
        assert 'aws_region = "eu-west-1"' in text and 'run_cmd = "llama-server -m a"' in text
        await settle(pilot, app)  # an agent that answers does not take the server's slot either
        assert app.runtime.dispatcher.primary is not None
        assert app.runtime.dispatcher.primary.name == "llama.cpp"


def two_servers_config(home: Path, one: str, two: str) -> None:
    (home / "config.toml").write_text(toml_config(one, two))


async def test_switches_and_the_pin_are_kept_with_the_session(
    milk_home: Path, tmp_path: Path
) -> None:
    with FakeOpenAIServer() as one, FakeOpenAIServer() as two:
        one.default_reply, two.default_reply = FakeReply(text=["from one"]), FakeReply(text=["from two"])  # fmt: skip
        two_servers_config(milk_home, one.url, two.url)
        app = start(cwd=str(tmp_path))
        try:
            assert "for this session" in app.agents.switch("two")
            app.agents.switch("demo-big", "escalation")
            assert app.primary_command("") is None  # pinned
            first = app.session_id
        finally:
            await app.aclose()
        app = start(cwd=str(tmp_path))  # resumes the folder's session
        try:
            assert app.session_id == first
            d = app.runtime.dispatcher
            assert d.primary is not None and d.primary.name == "two"
            assert d.escalation is not None and d.escalation.name == "demo-big"
            assert app.pinned == "primary"
            assert "primary agent: two (this session's choice; /agent switch changes it)" in (
                app.startup_notes
            )
            assert (await app.run_turn("refactor the entire codebase")).text == "from two"
            await app.new_session()  # a new session runs the configured agents, unpinned
            assert d.primary is not None and d.primary.name == "one" and app.pinned == ""
            assert d.escalation is not None and d.escalation.name == "claude"
            await app.switch_session(first)  # and the first one its own again
            assert d.primary is not None and d.primary.name == "two" and app.pinned == "primary"
        finally:
            await app.aclose()
        app = start(cwd=str(tmp_path), agent="one")  # this run's --agent wins
        try:
            assert app.runtime.dispatcher.primary is not None
            assert app.runtime.dispatcher.primary.name == "one"
        finally:
            await app.aclose()


async def test_escalate_prompt_sends_that_one_prompt(milk_home: Path, tmp_path: Path) -> None:
    with FakeOpenAIServer() as one, FakeOpenAIServer() as two:
        one.default_reply, two.default_reply = FakeReply(text=["from one"]), FakeReply(text=["from two"])  # fmt: skip
        two_servers_config(milk_home, one.url, two.url)
        app = MilkApp(start(cwd=str(tmp_path), escalation_agent="two", cooperative=True))
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app)
            await type_and_send(pilot, "/escalate what is wrong here")
            assert lines(app, "reply")[-1] == "from two"
            await type_and_send(pilot, "ls")
            assert lines(app, "reply")[-1] == "from one"  # back where the rules send it
            await type_and_send(pilot, "/escalate")  # bare: pinned until /auto
            await type_and_send(pilot, "ls")
            await type_and_send(pilot, "ls")
            assert lines(app, "reply")[-2:] == ["from two", "from two"]


def test_cli_usage_takes_the_session_last_opened(milk_home: Path, tmp_path: Path) -> None:
    """``milk-tui usage``'s "this session" is the one the user opened last, not a newer
    empty one (a ``/new`` then a switch back)."""
    import asyncio

    async def day() -> str:
        with FakeOpenAIServer() as one, FakeOpenAIServer() as two:
            two_servers_config(milk_home, one.url, two.url)
            app = start(cwd=str(tmp_path))
            try:
                await app.run_turn("hello")
                used = app.session_id
                await app.new_session()  # empty, and newer
                await app.switch_session(used)
                return used
            finally:
                await app.aclose()

    used = asyncio.run(day())
    out = subprocess.run(
        [str(Path(sys.executable).with_name("milk-tui")), "usage"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "MILK_HOME": str(milk_home)},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == f"This session ({used})", out.stdout
    assert "no usage recorded" not in out.stdout.split("\n\n")[0]


async def test_an_agent_saved_although_down_never_takes_a_slot(
    milk_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the demo agents running (nothing configured, no server found), an agent that
    answers takes the primary slot (test_facade_agents), one saved although it did not
    answer does not: every prompt would fail "no agent reachable"."""
    monkeypatch.setattr(boot, "LOCAL_SERVER_PROBES", (("llama.cpp", NOBODY),))
    app = start(cwd=str(tmp_path))
    try:
        assert app.runtime.demo
        result = await app.agents.add({"name": "bad", "url": NOBODY}, keep_slots=True)
        assert result.lines[-1] == "/agent switch bad runs it as the primary"
        assert (await app.run_turn("hello")).ok  # the demo agent still answers
        d = app.runtime.dispatcher
        assert d.primary is not None and d.primary.name == "demo-local"
    finally:
        await app.aclose()
