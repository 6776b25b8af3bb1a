"""Bedrock ``aws_service`` (the SigV4 signing name) and ``prompt_caching`` (a cache point
after the system prompt), on what a fake Bedrock server that real boto3 talks to received."""

from __future__ import annotations

from pathlib import Path

import pytest

from milk_tui.agents.base import AgentRequest, TextChunk
from milk_tui.agents.bedrock import BedrockAgent
from milk_tui.testing.fake_bedrock import agent_config
from milk_tui.testing.fake_bedrock_reply import Reply


async def _say(agent: BedrockAgent, cwd: Path) -> str:
    req = AgentRequest(slot="primary", prompt="hi", cwd=str(cwd), system_prompt="You are terse.")
    try:
        return "".join([e.text async for e in agent.stream(req) if isinstance(e, TextChunk)])
    finally:
        await agent.aclose()


@pytest.mark.parametrize(("service", "scope"), [(None, "/bedrock/"), ("gateway", "/gateway/")])
async def test_aws_service_is_the_signing_name(fake_bedrock, tmp_path, service, scope):
    fake_bedrock.script(Reply().text("ok"))
    keys = {"aws_service": service} if service else {}
    assert await _say(BedrockAgent(agent_config(fake_bedrock, **keys)), tmp_path) == "ok"
    auth = fake_bedrock.stream_requests[-1].headers["authorization"]
    assert f"/us-east-1{scope}aws4_request" in auth


@pytest.mark.parametrize("caching", [False, True])
async def test_prompt_caching_adds_a_cache_point_after_the_system_prompt(
    fake_bedrock, tmp_path, caching
):
    fake_bedrock.script(Reply().text("ok"))
    await _say(BedrockAgent(agent_config(fake_bedrock, prompt_caching=caching)), tmp_path)
    system = fake_bedrock.stream_requests[-1].body["system"]
    cache = [{"cachePoint": {"type": "default"}}] if caching else []
    assert system == [{"text": "You are terse."}, *cache]
