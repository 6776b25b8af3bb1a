"""Escalation to API agents, asserted on what the SERVER received: the dispatcher
escalating to an HTTP agent (fake OpenAI server) and to Bedrock (real boto3 → event-stream
fake).  Orientation system message first, percepts second, brief falls back to the prompt,
stale returns scoped to the last escalation boundary, the trimmer keeps system messages."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

import milk_tui.memory.store  # noqa: F401  (registers the percept migration before the db opens)
from milk_tui.agents.bedrock import BedrockAgent
from milk_tui.agents.openai_compat import OpenAICompatAgent
from milk_tui.config.settings import AgentConfig, AgentLimits, MilkConfig
from milk_tui.engine.bus import EventBus
from milk_tui.engine.dispatch import AgentSlot, Dispatcher
from milk_tui.engine.escalation_context import BRIEF_HEADER, PRIOR_SUMMARY_HEADER
from milk_tui.memory.service import MemoryService
from milk_tui.memory.store import PerceptStore
from milk_tui.testing.fake_bedrock import FakeBedrock, Reply
from milk_tui.testing.fake_bedrock import agent_config as bedrock_config
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, usage
from milk_tui.testing.scripted_agent import ScriptedAgent, say

FACT = "the deploy pipeline runs from scripts/deploy.sh"
FIRST_ANSWER = "".join(
    f"Split the deploy pipeline into build, verify and release step {i}. " for i in range(5)
)  # distinct sentences: one sentence repeated five times is a loop and gets cut
"""> 200 bytes so the escalation summary brick is kept."""


@dataclass
class Seen:
    """One request as the server received it, normalised across both wire formats."""

    system: list[str]
    conversation: list[tuple[str, str]]

    @property
    def text(self) -> str:
        return "\n".join(self.system + [t for _, t in self.conversation])


class Backend:
    name = ""

    def reply(self, text: str) -> None: ...

    def seen(self) -> list[Seen]: ...


class OpenAIBackend(Backend):
    name = "openai"

    def __init__(self, srv: FakeOpenAIServer, limits: AgentLimits) -> None:
        self.srv = srv
        self.config = AgentConfig(
            name="big-http",
            provider="openrouter",
            api_key="sk-test",
            url=srv.url,
            model="big-model",
            limits=limits,
        )
        self.agent = OpenAICompatAgent(self.config, slot="escalation")

    def reply(self, text: str) -> None:
        self.srv.enqueue(FakeReply(text=[text], usage=usage(30, 5)))

    def seen(self) -> list[Seen]:
        out = []
        for r in self.srv.chat_requests:
            msgs: list[dict[str, Any]] = r.json["messages"]
            out.append(
                Seen(
                    [m["content"] for m in msgs if m["role"] == "system"],
                    [(m["role"], m["content"] or "") for m in msgs if m["role"] != "system"],
                )
            )
        return out


class BedrockBackend(Backend):
    name = "bedrock"

    def __init__(self, fake: FakeBedrock, limits: AgentLimits) -> None:
        self.fake = fake
        self.config = bedrock_config(fake, name="big-bedrock", limits=limits)
        self.agent = BedrockAgent(self.config)

    def reply(self, text: str) -> None:
        self.fake.script(Reply().text(text).usage(30, 5))

    def seen(self) -> list[Seen]:
        out = []
        for r in self.fake.stream_requests:
            conv = [
                (m["role"], "\n".join(b.get("text", "") for b in m["content"]))
                for m in r.body["messages"]
            ]
            out.append(Seen([b["text"] for b in r.body.get("system", [])], conv))
        return out


@pytest.fixture(params=["openai", "bedrock"])
def backend_factory(request) -> Iterator[Any]:
    if request.param == "openai":
        with FakeOpenAIServer() as srv:
            yield lambda limits: OpenAIBackend(srv, limits)
    else:
        with FakeBedrock() as fake:
            yield lambda limits: BedrockBackend(fake, limits)


class Env:
    def __init__(self, store, db, tmp_path, backend: Backend, config: MilkConfig) -> None:
        self.backend = backend
        self.events: list = []
        bus = EventBus()
        bus.add_listener(self.events.append)
        self.memory = MemoryService(PerceptStore(db), bus)
        self.primary = ScriptedAgent(name="llama")
        session = store.create(str(tmp_path))
        session.primary_nonce = "pnonce01"
        self.dispatcher = Dispatcher(
            config=config,
            store=store,
            session=session,
            bus=bus,
            cwd=str(tmp_path),
            primary=AgentSlot(
                "primary", AgentConfig(name="llama", provider="local", url="http://x"), self.primary
            ),
            escalation=AgentSlot("escalation", backend.config, backend.agent),
            memory=self.memory,
        )
        self.memory.record(FACT, producer="user", scope="global")

    async def escalate(self, prompt: str, answer: str) -> None:
        self.backend.reply(answer)
        out = await self.dispatcher.run_turn(prompt, force="escalate")
        assert out.ok, out.error

    async def local(self, prompt: str, answer: str) -> None:
        self.primary.push(say(answer))
        out = await self.dispatcher.run_turn(prompt, force="primary")
        assert out.ok and out.slot == "primary", out.error

    def started(self):
        return [e for e in self.events if e.type == "escalation_started"][-1]


@pytest.fixture
def make_env(store, db, tmp_path, backend_factory):
    def make(limits: AgentLimits | None = None, **cfg: Any) -> Env:
        config = MilkConfig(sticky_escalation=False, **cfg)
        return Env(store, db, tmp_path, backend_factory(limits or AgentLimits()), config)

    return make


async def test_first_escalation_orientation_then_percepts(make_env):
    env = make_env()
    prompt = "how should we restructure the deploy pipeline for staged releases"
    await env.escalate(prompt, "Use three stages.")
    (seen,) = env.backend.seen()
    role, orientation, percepts = seen.system[:3]
    assert "escalation" in role.lower()
    # Orientation first: the brief falls back to the prompt on a first escalation.
    assert orientation.startswith(BRIEF_HEADER) and prompt in orientation
    assert percepts.startswith("[Remembered facts]") and FACT in percepts
    assert seen.conversation[-1] == ("user", prompt)
    assert env.started().mode == "first" and env.started().brief == prompt


async def test_stale_return_after_turn_gap_scopes_history(make_env):
    env = make_env()
    await env.escalate("how should we restructure the deploy pipeline", FIRST_ANSWER)
    for i in range(8):
        await env.local(f"show me step {i} of the deploy script output", f"local answer {i}")
    await env.escalate("back to the deploy pipeline design, what next", "Next: canaries.")
    started = env.started()
    assert (
        started.mode == "first" and started.downgraded and started.downgrade_reasons == ["turn_gap"]
    )
    seen = env.backend.seen()[-1]
    # History scoped to the turns since the last escalation boundary: the stale escalation
    # exchange is gone from the messages, the local turns since are there.
    assert FIRST_ANSWER.strip() not in "\n".join(t for _, t in seen.conversation)
    assert "how should we restructure" not in "\n".join(t for _, t in seen.conversation)
    assert any("local answer 0" in s for s in seen.system[3:])
    assert any("local answer 7" in s for s in seen.system[3:])
    # ... while the orientation carries the prior session in condensed form.
    assert PRIOR_SUMMARY_HEADER in seen.system[1]
    assert seen.system[2].startswith("[Remembered facts]")


async def test_returning_within_the_gap_keeps_prior_escalation_turns(make_env):
    env = make_env()
    await env.escalate("how should we restructure the deploy pipeline", FIRST_ANSWER)
    await env.local("show me the deploy script output", "local answer")
    await env.escalate("and the rollback path for the deploy pipeline?", "Keep the old build.")
    assert env.started().mode == "returning" and not env.started().downgraded
    seen = env.backend.seen()[-1]
    assert ("assistant", FIRST_ANSWER.strip()) in seen.conversation
    assert PRIOR_SUMMARY_HEADER not in seen.system[1]


async def test_stale_return_after_need_change(make_env):
    env = make_env()
    await env.escalate("how should we restructure the deploy pipeline", FIRST_ANSWER)
    nonce = env.dispatcher.session.primary_nonce
    await env.local(
        "new topic: the flaky login test",
        f"<milk:need:{nonce}>fix the flaky login test</milk:need:{nonce}>On it.",
    )
    await env.escalate("why does the login test flake under load", "Race in the fixture.")
    started = env.started()
    assert started.mode == "first" and started.downgrade_reasons == ["need_changed"]
    seen = env.backend.seen()[-1]
    assert FIRST_ANSWER.strip() not in "\n".join(t for _, t in seen.conversation)
    assert "fix the flaky login test" in seen.system[1]


async def test_trimmer_keeps_system_messages(make_env):
    # Overhead here is ~5.5 kB (role prompt, orientation with the primary-activity brick,
    # percepts); 6,800 leaves room for the escalation's own exchange plus one local turn.
    env = make_env(limits=AgentLimits(message_budget_chars=6800))
    await env.escalate("how should we restructure the deploy pipeline", FIRST_ANSWER)
    for i in range(6):
        await env.local(f"deploy question {i}", f"OLDEST-{i} " + "filler text " * 40)
    await env.escalate("deploy pipeline: what about canaries", "Add them.")
    seen = env.backend.seen()[-1]
    assert env.started().mode == "returning"
    assert seen.system[1].startswith("[Recent primary agent activity]")  # the orientation
    assert seen.system[2].startswith("[Remembered facts]") and FACT in seen.system[2]
    history = "\n".join(seen.system[3:] + [t for _, t in seen.conversation])
    # Oldest primary turns go first; the newest survives, and so does the agent's own work.
    assert "OLDEST-0" not in history and "OLDEST-4" not in history
    assert "OLDEST-5" in history
    assert ("assistant", FIRST_ANSWER.strip()) in seen.conversation
    role, last = seen.conversation[-1]  # Bedrock merges consecutive user messages
    assert role == "user" and last.endswith("deploy pipeline: what about canaries")


async def test_usage_recorded_for_the_escalation_role(make_env):
    env = make_env()
    await env.escalate("how should we restructure the deploy pipeline", "Stages.")
    rows = [e for e in env.events if e.type == "usage"]
    assert [(u.role, u.prompt_tokens, u.completion_tokens) for u in rows] == [("escalation", 30, 5)]
    agg = env.dispatcher.session.tokens_by_role_prefix("escalation")
    assert (agg.prompt, agg.completion) == (30, 5)
