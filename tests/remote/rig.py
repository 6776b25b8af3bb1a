"""An application with remote oversight pointed at the fake Bot API, and a write_file turn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.facade.application import Application, start
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall
from milk_tui.testing.fake_telegram import FakeTelegram

CHAT = 4242


def oversight(tg: FakeTelegram, **extra: Any) -> dict[str, Any]:
    return {
        "backend": "telegram",
        "telegram": {"token": tg.token, "chat_id": CHAT, "api_url": tg.url},
        **extra,
    }


def open_app(
    srv: FakeOpenAIServer, tg: FakeTelegram, cwd: Path, policy: str = "ask", **extra: Any
) -> tuple[Application, list[Any]]:
    cfg = MilkConfig(
        agent="fake",
        escalation_agent="fake",
        agents=[AgentConfig(name="fake", provider="local", url=srv.url, model="m")],
        remote_oversight=oversight(tg, **extra),
    )
    app = start(cwd=str(cwd), config=cfg, permission_policy=policy)  # type: ignore[arg-type]
    events: list[Any] = []
    app.add_listener(events.append)
    return app, events


def script_write(srv: FakeOpenAIServer, path: str = "out.txt") -> None:
    call = FakeToolCall("write_file", json.dumps({"path": path, "content": "hello\n"}), id="w1")
    srv.enqueue(FakeReply(tool_calls=[call]), FakeReply(text=["done"]))
