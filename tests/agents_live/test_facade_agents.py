"""The facade's agent verbs over real config files and fake servers: switch, reload, add,
remove, and a reload while a turn streams."""

from __future__ import annotations

import json
import stat
import threading
from pathlib import Path

import pytest

from milk_tui.facade.application import Application, start
from milk_tui.model import events as ev
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.testing.waits import until
from tests.agents_live.conftest import toml_config

Servers = tuple[FakeOpenAIServer, FakeOpenAIServer]


def _events(app: Application) -> list[ev.BusEvent]:
    seen: list[ev.BusEvent] = []
    app.add_listener(seen.append)
    return seen


async def test_switch_keeps_session_and_answers_from_new_agent(
    config_file: Path, servers: Servers, tmp_path: Path
) -> None:
    before = config_file.read_text()
    app = start(cwd=str(tmp_path))
    try:
        seen = _events(app)
        assert (await app.run_turn("hello")).text == "from one"
        line = app.agents.switch("TWO")
        assert line.startswith("primary agent: two") and "config is unchanged" in line
        assert (await app.run_turn("again")).text == "from two"
        assert len(app.history()) == 4  # the session and its turns stayed
        changed = [e for e in seen if isinstance(e, ev.AgentsChanged)]
        assert changed and changed[-1].primary == "two" and changed[-1].rebuilt == ("primary",)
        assert config_file.read_text() == before  # a switch is for this session only
        with pytest.raises(ValueError, match=r"no agent named 'nope' \(defined: one, two"):
            app.agents.switch("nope")
        app.agents.switch("demo-big", "escalation")
        assert app.startup_info().escalation.name == "demo-big"
    finally:
        await app.aclose()


async def test_reload_lists_changes_and_rebuilds_changed_active_agent(
    config_file: Path, servers: Servers, tmp_path: Path
) -> None:
    app = start(cwd=str(tmp_path))
    try:
        await app.run_turn("hello")
        config_file.write_text(
            toml_config(servers[1].url, servers[1].url, model_one="model-x").replace(
                'theme = "milk-dark"', 'theme = "milk-light"'
            )
        )
        result = await app.agents.check_file()
        assert result is not None and result.ok
        assert result.lines == ("agents changed: one (model, url)", "keys changed: theme")
        assert (await app.run_turn("next")).text == "from two"  # the new url answers
        assert servers[1].chat_requests[-1].json["model"] == "model-x"
        assert len(app.history()) == 4
        assert await app.agents.check_file() is None  # unchanged file: nothing
    finally:
        await app.aclose()


async def test_invalid_edit_keeps_old_config(config_file: Path, tmp_path: Path) -> None:
    app = start(cwd=str(tmp_path))
    try:
        config_file.write_text(config_file.read_text() + "\n[[agents]\nname = 'x'\n")
        result = await app.agents.reload()
        assert not result.ok and len(result.lines) == 1
        assert result.lines[0].startswith("config not reloaded, the old one stays: ")
        assert "invalid TOML" in result.lines[0]
        assert (await app.run_turn("still")).text == "from one"
    finally:
        await app.aclose()


async def test_a_bad_entry_in_an_edit_is_one_line_and_the_rest_applies(
    config_file: Path, tmp_path: Path
) -> None:
    """As at start-up (config/repair.py): the bad entry is left out, named in one line."""
    app = start(cwd=str(tmp_path))
    try:
        config_file.write_text(config_file.read_text() + "\n[[agents]]\nname = 3\n")
        result = await app.agents.reload()
        assert result.ok
        (line,) = [x for x in result.lines if "agents[3].name" in x]
        assert "left out" in line
        assert (await app.run_turn("still")).text == "from one"
    finally:
        await app.aclose()


async def test_reload_during_turn_applies_after_it(
    config_file: Path, servers: Servers, tmp_path: Path
) -> None:
    held = threading.Event()  # the turn runs until the test lets its reply go on
    servers[0].enqueue(FakeReply(text=["slow ", "reply"], hold=held, hold_after=1))
    app = start(cwd=str(tmp_path))
    try:
        task = app.submit("long one")
        assert task is not None
        await until(None, lambda: servers[0].chat_requests, what="the turn's request")
        assert app.busy
        config_file.write_text(toml_config(servers[1].url, servers[1].url))
        result = await app.agents.reload()
        assert "the agents change after the running turn" in result.lines
        held.set()
        assert (await task).text == "slow reply"  # the running stream kept its agent
        await until(None, lambda: app.startup_info().primary.description.endswith(servers[1].url))
        assert (await app.run_turn("next")).text == "from two"
    finally:
        await app.aclose()


async def test_add_writes_toml_keeping_comments_then_remove(
    config_file: Path, tmp_path: Path
) -> None:
    app = start(cwd=str(tmp_path))
    try:
        result = await app.agents.add(
            {
                "name": "three",
                "provider": "openai",
                "url": "https://api.example.com",
                "model": "m",
                "api_key": "sk-test-123",
            }
        )
        text = config_file.read_text()
        assert "# my milk config — this comment must survive every edit" in text
        assert "# a second server" in text and 'name = "three"' in text
        assert result.lines[0] == "agents added: three"
        assert stat.S_IMODE(config_file.stat().st_mode) == 0o600
        assert [r.name for r in app.agents.rows()][:4] == ["one", "two", "demo-big", "three"]
        with pytest.raises(ValueError, match="exists already"):
            await app.agents.add({"name": "Three"})
        with pytest.raises(ValueError, match="url: expected an http"):
            await app.agents.add({"name": "four", "url": "ftp://x"})
        with pytest.raises(ValueError, match="'claude': built in; nothing to remove"):
            await app.agents.remove("claude")
        with pytest.raises(ValueError, match="'ghost': not in the config file"):
            await app.agents.remove("ghost")
        result = await app.agents.remove("three")
        assert result.lines == ("agents removed: three",)
        assert (
            "three" not in config_file.read_text()
            and "# a second server" in config_file.read_text()
        )
    finally:
        await app.aclose()


async def test_add_to_json_and_to_no_file(
    milk_home: Path, servers: Servers, tmp_path: Path
) -> None:
    app = start(cwd=str(tmp_path))  # no config file at all
    try:
        await app.agents.add({"name": "mine", "url": servers[0].url, "model": "m"})
        made = milk_home / "config.toml"
        assert 'name = "mine"' in made.read_text() and app.agents.config_path == made
        assert stat.S_IMODE(made.stat().st_mode) == 0o600
        assert (await app.run_turn("hi")).text == "from one"  # the new agent became primary
    finally:
        await app.aclose()
    made.unlink()
    js = milk_home / "config.json"
    js.write_text(json.dumps({"agent": "a", "agents": [{"name": "a", "url": servers[0].url}]}))
    app = start(cwd=str(tmp_path))
    try:
        await app.agents.add({"name": "b", "url": servers[1].url})
        data = json.loads(js.read_text())
        assert [a["name"] for a in data["agents"]] == ["a", "b"] and data["agent"] == "a"
    finally:
        await app.aclose()


async def test_probe_reports_up_and_down(
    config_file: Path, servers: Servers, tmp_path: Path
) -> None:
    app = start(cwd=str(tmp_path))
    try:
        assert await app.agents.probe("one") == "up"
        assert await app.agents.probe("two") == "up"  # not active: a throw-away instance
        assert await app.agents.probe("demo-big") == "up"
        servers[1].stop()
        assert (await app.agents.probe("two")).startswith("down")
    finally:
        await app.aclose()


async def test_switch_during_a_turn_applies_after_it(
    config_file: Path, servers: Servers, tmp_path: Path
) -> None:
    held = threading.Event()  # the turn runs until the test lets its reply go on
    servers[0].enqueue(FakeReply(text=["slow ", "reply"], hold=held, hold_after=1))
    app = start(cwd=str(tmp_path))
    try:
        task = app.submit("long one")
        assert task is not None
        await until(None, lambda: servers[0].chat_requests, what="the turn's request")
        assert app.busy
        line = app.agents.switch("two")
        assert line == (
            "primary agent: two after the running turn (for this session; the config is unchanged)"
        )
        held.set()
        assert (await task).text == "slow reply"
        await until(None, lambda: app.startup_info().primary.name == "two")
        assert (await app.run_turn("next")).text == "from two"
    finally:
        await app.aclose()


async def test_a_chosen_agent_gone_from_the_file_and_mcp_changes(
    config_file: Path, servers: Servers, tmp_path: Path
) -> None:
    app = start(cwd=str(tmp_path))
    try:
        app.agents.switch("two")
        text = config_file.read_text()
        cut = text.index('[[agents]]\nname = "two"')
        config_file.write_text(
            text[:cut]
            + text[text.index('[[agents]]\nname = "demo-big"') :]
            + '\n[[mcp_servers]]\nname = "calc"\ncommand = "true"\n'
        )
        result = await app.agents.reload()
        assert result.lines == (
            "agent 'two' is gone from the config; primary as configured",
            "agents removed: two",
            "keys changed: mcp_servers",
            "mcp server 'calc': added, starting",  # started now, no restart needed
        )
        assert (await app.run_turn("hi")).text == "from one"
    finally:
        await app.aclose()
