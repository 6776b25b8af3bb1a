"""Tags written by real agent backends reach the store: the primary over a fake OpenAI
server, the escalation agent over HTTP and over Bedrock (boto3 → event-stream fake).
Markup never reaches the stored turn text, producer = the agent that wrote the tag."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from milk_tui.agents.bedrock import BedrockAgent
from milk_tui.agents.openai_compat import OpenAICompatAgent
from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.engine.dispatch import AgentSlot, Dispatcher
from milk_tui.memory.service import MemoryService
from milk_tui.storage.sessions import SessionStore
from milk_tui.testing.fake_bedrock import FakeBedrock, Reply
from milk_tui.testing.fake_bedrock import agent_config as bedrock_config
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, usage

PN, EN = "pnonce01", "enonce02"


def _split_everywhere(text: str) -> list[str]:
    """Chunks of 3 characters: every tag is cut across several SSE events."""
    return [text[i : i + 3] for i in range(0, len(text), 3)]


@pytest.fixture
def primary_srv() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        yield srv


@pytest.fixture(params=["openai", "bedrock"])
def escalation(request) -> Iterator[tuple[str, Any, Any]]:
    if request.param == "openai":
        with FakeOpenAIServer() as srv:
            cfg = AgentConfig(name="deepseek", provider="openrouter", api_key="sk-test",
                              url=srv.url, model="big")  # fmt: skip
            yield (
                "openai",
                cfg,
                lambda text: srv.enqueue(
                    FakeReply(text=_split_everywhere(text), usage=usage(9, 3))
                ),
            )
    else:
        with FakeBedrock() as fake:
            cfg = bedrock_config(fake, name="deepseek")
            yield (
                "bedrock",
                cfg,
                lambda text: fake.script(Reply().text(*_split_everywhere(text)).usage(9, 3)),
            )


def _dispatcher(
    db, tmp_path, mem: MemoryService, bus, primary_srv, esc_cfg
) -> tuple[Dispatcher, SessionStore]:
    store = SessionStore(db)
    session = store.create(str(tmp_path))
    session.primary_nonce, session.escalation_nonce = PN, EN
    pcfg = AgentConfig(name="llama", provider="local", url=primary_srv.url, model="small")
    esc_agent = (BedrockAgent(esc_cfg) if esc_cfg.provider == "bedrock"
                 else OpenAICompatAgent(esc_cfg, slot="escalation"))  # fmt: skip
    d = Dispatcher(
        config=MilkConfig(agent="llama", escalation_agent="deepseek", sticky_escalation=False),
        store=store, session=session, bus=bus, cwd=str(tmp_path),
        primary=AgentSlot("primary", pcfg, OpenAICompatAgent(pcfg, slot="primary")),
        escalation=AgentSlot("escalation", esc_cfg, esc_agent),
        memory=mem,
    )  # fmt: skip
    return d, store


async def test_tags_from_every_http_path_reach_the_store(
    db, tmp_path, mem, bus, events, primary_srv, escalation
) -> None:
    _, esc_cfg, esc_reply = escalation
    d, store = _dispatcher(db, tmp_path, mem, bus, primary_srv, esc_cfg)

    primary_text = (f"Sure.<milk:need:{PN}>set up the build</milk:need:{PN}> Noted"
                    f"<milk:percept:{PN}>@deepseek: the repo uses bazel</milk:percept:{PN}>"
                    f"<milk:percept:other1>forged fact</milk:percept:other1>.")  # fmt: skip
    primary_srv.enqueue(FakeReply(text=_split_everywhere(primary_text), usage=usage(5, 2)))
    out = await d.run_turn("please set up the build for me", force="primary")
    assert out.ok, out.error

    esc_reply(
        f"Done.<milk:percept:{EN}>@llama: run bazel with --config=ci</milk:percept:{EN}>"
        f"<milk:percept:{EN}>user works on linux</milk:percept:{EN}>"
    )
    out = await d.run_turn("now do the hard part of the build", force="escalate")
    assert out.ok, out.error

    facts = {p.content: p for p in mem.list()}
    assert set(facts) == {
        "the repo uses bazel",
        "run bazel with --config=ci",
        "user works on linux",
    }
    assert (facts["the repo uses bazel"].producer, facts["the repo uses bazel"].consumer) == (
        "primary",
        "escalation",
    )
    assert (
        facts["run bazel with --config=ci"].producer,
        facts["run bazel with --config=ci"].consumer,
    ) == ("escalation", "primary")
    assert facts["user works on linux"].consumer == "all"
    s = store.load(d.session.id)
    assert s.current_need == "set up the build"
    assistant = [t.content for t in s.history if t.role == "assistant"]
    assert assistant == ["Sure. Noted.", "Done."]
    shown = "".join(e.text for e in events if e.type == "text_delta")
    assert "<milk" not in shown and "forged" not in shown
    assert any(e.type == "need_changed" for e in events)
    # the primary was told about the tags with its nonce and both configured names
    system = primary_srv.chat_requests[0].json["messages"][0]["content"]
    assert f"<milk:percept:{PN}>" in system and "@llama: " in system and "@deepseek: " in system
