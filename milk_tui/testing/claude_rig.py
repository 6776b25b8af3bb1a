"""A dispatcher wired to the REAL Claude CLI (via the fake Anthropic server) for tests.

Lives here rather than in a conftest so test modules can import the class for typing.
"""

from __future__ import annotations

from pathlib import Path

from milk_tui.agents.claude_cli import ClaudeCliAgent
from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.engine.bus import EventBus
from milk_tui.engine.dispatch import AgentSlot, Dispatcher
from milk_tui.engine.router import Router
from milk_tui.storage.db import Database
from milk_tui.storage.sessions import SessionStore
from milk_tui.testing.fake_anthropic import FakeAnthropic, Reply, claude_env
from milk_tui.testing.scripted_agent import ScriptedAgent, say


class CliRig:
    """A real dispatcher: scripted primary, the REAL Claude CLI as escalation agent talking
    to the fake Anthropic server, memory on the same SQLite database."""

    def __init__(
        self,
        tmp_path: Path,
        server: FakeAnthropic,
        claude_bin: str,
        config: MilkConfig | None = None,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        from milk_tui.memory.service import MemoryService
        from milk_tui.memory.store import PerceptStore  # importing registers the percept schema

        self.server = server
        self.config = config or MilkConfig()
        self.db = Database(tmp_path / "milk.db")
        self.store = SessionStore(self.db)
        self.bus = EventBus()
        self.events: list = []
        self.bus.add_listener(self.events.append)
        self.memory = MemoryService(PerceptStore(self.db), self.bus)
        self.cwd = tmp_path / "project"
        self.cwd.mkdir()
        self.primary = ScriptedAgent(name="llama")
        self.esc_config = AgentConfig(name="claude", provider="claude-cli", bin=claude_bin)
        env = {**claude_env(tmp_path, server.url), **(extra_env or {})}
        self.escalation = ClaudeCliAgent(self.esc_config, env=env)
        self.dispatcher = Dispatcher(
            config=self.config,
            store=self.store,
            session=self.store.create(str(self.cwd)),
            bus=self.bus,
            cwd=str(self.cwd),
            primary=AgentSlot(
                "primary",
                AgentConfig(name="llama", provider="local", url="http://127.0.0.1:9"),
                self.primary,
            ),
            escalation=AgentSlot("escalation", self.esc_config, self.escalation),
            memory=self.memory,
            router=Router(self.config, str(self.cwd)),
            permission_policy="deny",
        )

    @property
    def session(self):  # noqa: ANN201
        return self.dispatcher.session

    def of(self, kind: str) -> list:
        return [e for e in self.events if e.type == kind]

    def reload(self):  # noqa: ANN201
        return self.store.load(self.session.id)

    async def escalate(self, prompt: str, reply: Reply | None = None):  # noqa: ANN201
        if reply is not None:
            self.server.push(reply)
        return await self.dispatcher.run_turn(prompt, force="escalate")

    async def local(self, prompt: str, answer: str = "local answer"):  # noqa: ANN201
        self.primary.push(say(answer))
        out = await self.dispatcher.run_turn(prompt, force="primary")
        assert out.ok and out.slot == "primary", out
        return out

    def close(self) -> None:
        self.db.close()
