"""``Rig``: a dispatcher wired to two scripted agents plus a recording bus subscriber (the
``rig`` fixture of tests/conftest.py).  A module of its own so that a test can build one
with its own config: ``from conftest import`` would find whichever conftest.py was loaded
last under that name."""

from __future__ import annotations

from pathlib import Path

from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.engine.bus import EventBus
from milk_tui.engine.dispatch import AgentSlot, Dispatcher
from milk_tui.storage.sessions import SessionStore
from milk_tui.testing.scripted_agent import ScriptedAgent


class Rig:
    """A dispatcher wired to two scripted agents plus a recording bus subscriber."""

    def __init__(
        self,
        store: SessionStore,
        tmp: Path,
        config: MilkConfig | None = None,
        memory: object | None = None,
    ) -> None:
        self.config = config or MilkConfig()
        self.store = store
        self.bus = EventBus()
        self.events: list = []
        self.bus.add_listener(self.events.append)
        self.primary = ScriptedAgent(name="llama")
        self.escalation = ScriptedAgent(name="claude")
        self.cwd = str(tmp)
        session = store.create(self.cwd)
        self.dispatcher = Dispatcher(
            config=self.config,
            store=store,
            session=session,
            bus=self.bus,
            cwd=self.cwd,
            primary=AgentSlot(
                "primary", AgentConfig(name="llama", provider="local", url="http://x"), self.primary
            ),
            escalation=AgentSlot(
                "escalation", AgentConfig(name="claude", provider="claude-cli"), self.escalation
            ),
            memory=memory,
        )

    @property
    def session(self):  # noqa: ANN201
        return self.dispatcher.session

    def types(self) -> list[str]:
        return [e.type for e in self.events]

    def of(self, t: str) -> list:
        return [e for e in self.events if e.type == t]

    def reload(self):  # noqa: ANN201
        return self.store.load(self.session.id)
