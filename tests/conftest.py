"""Suite-wide fixtures: an isolated MILK_HOME per test and a dispatcher on scripted agents."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.engine.bus import EventBus
from milk_tui.engine.dispatch import AgentSlot, Dispatcher
from milk_tui.storage.db import Database
from milk_tui.storage.sessions import SessionStore
from milk_tui.testing.fake_anthropic import FakeAnthropic, claude_env, find_claude_bin
from milk_tui.testing.fake_bedrock import FakeBedrock
from milk_tui.testing.scripted_agent import ScriptedAgent

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def milk_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own config/data folder; nothing touches the real user dirs."""
    home = tmp_path / "milk-home"
    home.mkdir()
    monkeypatch.setenv("MILK_HOME", str(home))
    monkeypatch.delenv("MILK_CONFIG", raising=False)
    monkeypatch.setenv("MILK_DEMO_PACE", "0")
    for k in list(os.environ):
        if k.startswith("MILK_") and k not in (
            "MILK_HOME",
            "MILK_DEMO_PACE",
            "MILK_TEST_CLAUDE_BIN",
        ):
            monkeypatch.delenv(k, raising=False)
    yield home


@pytest.fixture
def db(milk_home: Path) -> Iterator[Database]:
    d = Database(milk_home / "milk.db")
    yield d
    d.close()


@pytest.fixture
def store(db: Database) -> SessionStore:
    return SessionStore(db)


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


@pytest.fixture
def rig(store: SessionStore, tmp_path: Path) -> Rig:
    return Rig(store, tmp_path)


# ----- the fake Anthropic server and the real Claude CLI (escalation and agent-key tests) --
@pytest.fixture
def fake_anthropic() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as srv:
        yield srv


@pytest.fixture
def claude_bin() -> str:
    found = find_claude_bin()
    if not found:
        pytest.skip("real Claude CLI not installed (npm install @anthropic-ai/claude-code)")
    return found


@pytest.fixture
def real_claude_env(tmp_path: Path, fake_anthropic: FakeAnthropic) -> dict[str, str]:
    return claude_env(tmp_path, fake_anthropic.url)


# ----- an AWS-free environment and a fake Bedrock server that real boto3 talks to ----------


@pytest.fixture
def no_real_aws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may read the developer's ~/.aws or env credentials, or probe IMDS."""
    for k in list(os.environ):
        if k.startswith("AWS_"):
            monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


@pytest.fixture
def fake_bedrock(no_real_aws: None) -> Iterator[FakeBedrock]:
    with FakeBedrock() as fake:
        yield fake
