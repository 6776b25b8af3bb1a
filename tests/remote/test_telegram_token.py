"""The bot token never shows: not in a notice (even when the API echoes it), not in a config
error, not in what is sent to the phone; ``token_cmd`` supplies it without the config."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from milk_tui.cli.terminal_out import event_json
from milk_tui.config.errors import ConfigError
from milk_tui.config.load import load_config
from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.facade.application import start
from milk_tui.model import events as ev
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.testing.fake_telegram import FakeTelegram
from milk_tui.testing.waits import until
from tests.remote.rig import CHAT, open_app

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def srv() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as s:
        yield s


@pytest.fixture
def tg() -> Iterator[FakeTelegram]:
    with FakeTelegram() as t:
        yield t


def all_text(events: list[Any]) -> str:
    return "\n".join(event_json(e) for e in events)


async def test_an_api_error_echoing_the_token_is_masked(
    srv: FakeOpenAIServer, tg: FakeTelegram, tmp_path: Path
) -> None:
    tg.refuse = f"Bad Request: no such bot {tg.token} at /bot{tg.token}/getUpdates"
    app, events = open_app(srv, tg, tmp_path)
    try:
        await app.start_remote()
        await until(
            None,
            lambda: any(isinstance(e, ev.Notice) and "Bad Request" in e.message for e in events),
        )
        tg.refuse = ""
        tg.down = True  # unreachable: the notice names the method, never the URL
        await until(
            None,
            lambda: any(isinstance(e, ev.Notice) and "back-off" in e.message for e in events),
            timeout=60,
        )
        srv.enqueue(FakeReply(text=[f"the token is {tg.token}"]))  # a reply echoing it
        tg.down = False
        out = await asyncio.wait_for(app.run_turn("hi", force="primary"), 60)
        assert out.ok
        await asyncio.to_thread(tg.wait_message, lambda m: m.text.startswith("✅"))
    finally:
        await app.aclose()
    assert tg.token not in all_text(events)
    assert "***" in all_text(events)
    assert all(tg.token not in m.text for m in tg.sent)


def test_a_bad_token_value_is_not_echoed_by_the_config_error(tmp_path: Path) -> None:
    p = tmp_path / "config.json"
    p.write_text(
        json.dumps({"remote_oversight": {"telegram": {"token": ["123456:SECRET-abcdef"]}}})
    )
    p.chmod(0o600)
    try:
        cfg, warnings, _ = load_config(p)
    except ConfigError as e:
        said = str(e)
    else:
        said = "\n".join(warnings)
        assert cfg.remote_oversight.telegram.token == ""
    assert "token" in said and "SECRET-abcdef" not in said


def test_a_readable_config_holding_the_token_is_warned(tmp_path: Path) -> None:
    p = tmp_path / "config.json"
    p.write_text(json.dumps({"remote_oversight": {"telegram": {"token": "123456:SECRET-abcdef"}}}))
    p.chmod(0o644)
    _, warnings, _ = load_config(p)
    assert any("remote_oversight.telegram.token" in w for w in warnings), warnings
    assert not any("SECRET-abcdef" in w for w in warnings)


async def test_token_cmd_supplies_the_token(
    srv: FakeOpenAIServer, tg: FakeTelegram, tmp_path: Path
) -> None:
    cfg = MilkConfig(
        agent="fake",
        agents=[AgentConfig(name="fake", provider="local", url=srv.url, model="m")],
        remote_oversight={
            "backend": "telegram",
            "telegram": {
                "token_cmd": f"printf '%s' '{tg.token}'",
                "chat_id": CHAT,
                "api_url": tg.url,
            },
        },
    )
    app = start(cwd=str(tmp_path), config=cfg)
    events: list[Any] = []
    app.add_listener(events.append)
    try:
        await app.start_remote()
        assert app.remote is not None
        await until(None, lambda: tg.polls() >= 2, what="polling with the command's token")
        assert not [e for e in events if isinstance(e, ev.Notice) and e.level == "warning"]
    finally:
        await app.aclose()


async def test_switched_on_without_a_chat_id_is_one_notice(
    srv: FakeOpenAIServer, tg: FakeTelegram, tmp_path: Path
) -> None:
    cfg = MilkConfig(remote_oversight={"backend": "telegram", "telegram": {"token": tg.token}})
    app = start(cwd=str(tmp_path), config=cfg)
    events: list[Any] = []
    app.add_listener(events.append)
    try:
        await app.start_remote()
        assert app.remote is None
        (n,) = [e for e in events if isinstance(e, ev.Notice)]
        assert "chat_id is not set" in n.message and tg.token not in n.message
        assert not tg.calls
    finally:
        await app.aclose()
