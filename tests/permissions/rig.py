"""Shared set-up for the permission tests: a project folder with real files, a folder
outside it (also reachable through a symlink and as ``~``), and an application on the fake
OpenAI server whose scripted tool calls hit the real built-in tools."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.facade.application import Application, start
from milk_tui.model import events as ev
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall

ESCAPES = ("dotdot", "absolute", "home", "symlinked_folder")
"""Four spellings of a path outside the project that all land in ``Layout.outside``."""


@dataclass(frozen=True)
class Layout:
    proj: Path
    outside: Path

    def escape(self, kind: str, name: str) -> str:
        return {
            "dotdot": f"../outside/{name}",
            "absolute": str(self.outside / name),
            "home": f"~/{name}",  # HOME is the outside folder
            "symlinked_folder": f"link/{name}",
        }[kind]


def layout(tmp_path: Path, monkeypatch: Any) -> Layout:
    proj, outside = tmp_path / "proj", tmp_path / "outside"
    proj.mkdir()
    outside.mkdir()
    (proj / "link").symlink_to(outside)
    monkeypatch.setenv("HOME", str(outside))
    return Layout(proj.resolve(), outside.resolve())


def config(url: str, **extra: Any) -> MilkConfig:
    return MilkConfig(
        agent="fake",
        escalation_agent="fake",
        agents=[AgentConfig(name="fake", provider="local", url=url, model="m")],
        **extra,
    )


def open_app(
    srv: FakeOpenAIServer, cwd: Path, policy: str, **extra: Any
) -> tuple[Application, list[Any]]:
    app = start(cwd=str(cwd), config=config(srv.url, **extra), permission_policy=policy)  # type: ignore[arg-type]
    events: list[Any] = []
    app.add_listener(events.append)
    return app, events


def call(name: str, call_id: str, **args: Any) -> FakeToolCall:
    return FakeToolCall(name, json.dumps(args), id=call_id)


def script(srv: FakeOpenAIServer, *calls: FakeToolCall) -> None:
    """One reply with ``calls``, then a plain answer."""
    srv.enqueue(FakeReply(tool_calls=list(calls)), FakeReply(text=["done"]))


def results(srv: FakeOpenAIServer) -> dict[str, str]:
    """Tool call id → what the model was told (output or error) in the last request."""
    out: dict[str, str] = {}
    for m in srv.chat_requests[-1].json["messages"]:
        if m["role"] == "tool":
            body = json.loads(m["content"])
            out[m["tool_call_id"]] = str(body.get("output", body.get("error")))
    return out


def of(events: list[Any], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def answering(app: Application, decide: Callable[[ev.PermissionRequested], dict[str, Any]]) -> None:
    """Answer every question at once with ``decide(question)`` (answer_permission's kwargs)."""

    def on(e: ev.BusEvent) -> None:
        if isinstance(e, ev.PermissionRequested):
            app.answer_permission(e.request_id, **decide(e))

    app.add_listener(on)


async def until(what: str, check: Callable[[], Any], timeout: float = 10.0) -> Any:
    """Poll ``check`` until it is truthy; raises naming ``what`` at the deadline."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (got := check()):
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)
    return got


def print_mode_config(home: Path, url: str) -> None:
    """A milk home whose one agent is the fake server at ``url`` (for ``-p`` processes)."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'agent = "fake"\nescalation_agent = "fake"\n[[agents]]\nname = "fake"\n'
        f'provider = "local"\nurl = "{url}"\nmodel = "m"\n'
    )
