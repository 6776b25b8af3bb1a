"""The router classifier's tokens reach whoever books them, on both classifier paths: a
streamed turn (OpenAI-compatible) and Bedrock's one-shot ``converse``."""

from __future__ import annotations

from pathlib import Path

from milk_tui.agents.base import UsageEvent
from milk_tui.config.settings import MilkConfig
from milk_tui.engine.router import RouteFlags, Router
from milk_tui.engine.router_classifier import make_agent_classifier
from milk_tui.model.session import Session

INCONCLUSIVE = "describe" + " qqq" * 32
"""An escalate verb (+4) and no difficulty signal: the score is inconclusive."""


async def test_bedrock_converse_usage_is_reported(tmp_path: Path) -> None:
    from milk_tui.agents.bedrock import BedrockAgent
    from milk_tui.testing.fake_bedrock import FakeBedrock, Reply, agent_config

    spent: list[UsageEvent] = []
    with FakeBedrock() as fake:
        fake.script(Reply().text("escalate").usage(120, 2, cache_read=80, cache_write=8))
        agent = BedrockAgent(agent_config(fake))
        router = Router(MilkConfig(), str(tmp_path))
        router.classifier = make_agent_classifier(agent, on_usage=spent.append)
        d = await router.decide(INCONCLUSIVE, Session(id="s", cwd=str(tmp_path)), RouteFlags())
    assert (d.target, d.rule) == ("escalation", "classifier")
    assert [(u.prompt_tokens, u.completion_tokens, u.cache_read, u.cache_creation)
            for u in spent] == [(120, 2, 80, 8)]  # fmt: skip


async def test_chat_verdict_usage_is_reported(tmp_path: Path) -> None:
    from milk_tui.agents.openai_compat import OpenAICompatAgent
    from milk_tui.config.settings import AgentConfig
    from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, usage

    spent: list[UsageEvent] = []
    with FakeOpenAIServer() as srv:
        srv.enqueue(FakeReply(text=["primary"], usage=usage(90, 1, cached=64)))
        agent = OpenAICompatAgent(
            AgentConfig(name="llama", provider="local", url=srv.url, model="q")
        )
        classify = make_agent_classifier(agent, on_usage=spent.append)
        verdict = await classify("which?")
        assert not isinstance(verdict, str) and verdict.answer == "primary"
    assert [(u.model, u.prompt_tokens, u.cache_read) for u in spent] == [("q", 26, 64)]
