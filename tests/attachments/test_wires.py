"""Each wire format carries the files as its server expects, seen on the real fakes:
OpenAI chat ``image_url`` data URLs, Bedrock Converse image blocks through real boto3, and
the REAL Claude CLI passing an image block on to the (fake) Anthropic API."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from dispatch_rig import Rig
from peer_missing import skip_peer_missing

from milk_tui.agents.bedrock import BedrockAgent
from milk_tui.config.settings import AgentConfig
from milk_tui.engine.attachments import read_attachment
from milk_tui.testing.claude_rig import CliRig
from milk_tui.testing.fake_anthropic import FakeAnthropic, Reply, find_claude_bin
from milk_tui.testing.fake_bedrock import FakeBedrock, agent_config
from milk_tui.testing.fake_bedrock_reply import Reply as BedrockReply
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from tests.attachments.files import png_bytes, write_png

FILES = ("shot.png", "app.log")


def _files(tmp: Path) -> tuple:
    write_png(tmp / "shot.png")
    (tmp / "app.log").write_text("ERROR boom\n")
    return tuple(read_attachment(n, str(tmp)) for n in FILES)


async def _openai_turn(tmp: Path, store, vision: bool) -> dict:
    from milk_tui.agents.openai_compat import OpenAICompatAgent
    from milk_tui.engine.dispatch import AgentSlot

    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["seen"])
        cfg = AgentConfig(name="llama", provider="local", url=srv.url, vision=vision)
        rig = Rig(store, tmp)
        rig.dispatcher.primary = AgentSlot("primary", cfg, OpenAICompatAgent(cfg))
        out = await rig.dispatcher.run_turn(
            "what is wrong?", force="primary", attachments=_files(tmp)
        )
        assert out.ok, out.error
        return srv.chat_requests[-1].json["messages"][-1]


async def test_openai_gets_image_url_parts_and_the_text_file_fenced(tmp_path: Path, store):
    user = await _openai_turn(tmp_path, store, vision=True)
    text, image = user["content"]
    assert text["type"] == "text"
    assert text["text"].startswith("what is wrong?\n\napp.log:\n```\nERROR boom\n```")
    url = image["image_url"]["url"]
    assert image["type"] == "image_url" and url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == png_bytes()


async def test_openai_agent_without_vision_gets_a_note_instead(tmp_path: Path, store):
    user = await _openai_turn(tmp_path, store, vision=False)
    assert isinstance(user["content"], str)
    assert "[attached image: shot.png (image/png" in user["content"]
    assert "ERROR boom" in user["content"] and "base64" not in user["content"]


@pytest.fixture
def bedrock() -> Iterator[FakeBedrock]:
    with FakeBedrock() as fake:
        yield fake


async def test_bedrock_gets_an_image_block_with_the_bytes(tmp_path: Path, bedrock: FakeBedrock):
    from milk_tui.agents.base import AgentRequest

    bedrock.script(BedrockReply().text("seen"))
    agent = BedrockAgent(agent_config(bedrock))
    try:
        request = AgentRequest(slot="primary", prompt="describe", cwd=str(tmp_path))
        request.attachments = _files(tmp_path)
        async for _ in agent.stream(request):
            pass
    finally:
        await agent.aclose()
    content = bedrock.stream_requests[-1].body["messages"][-1]["content"]
    assert content[0]["text"].startswith("describe\n\napp.log:\n```\nERROR boom")
    image = content[1]["image"]
    assert image["format"] == "png"
    assert base64.b64decode(image["source"]["bytes"]) == png_bytes()


@pytest.mark.real_peer
async def test_real_claude_cli_passes_the_image_block_to_the_model(tmp_path: Path):
    claude_bin = find_claude_bin()
    if not claude_bin:
        skip_peer_missing("the real Claude CLI (npm install @anthropic-ai/claude-code)")
    with FakeAnthropic() as server:
        rig = CliRig(tmp_path, server, claude_bin)
        try:
            files = _files(rig.cwd)
            server.push(Reply.text("a red square"))
            out = await rig.dispatcher.run_turn(
                "what is this?", force="escalate", attachments=files
            )
            assert out.ok, out.error
            req = server.message_requests[-1]
            user = [m for m in req.messages if m.get("role") == "user"][-1]
            blocks = user["content"]
            images = [b for b in blocks if isinstance(b, dict) and b.get("type") == "image"]
            assert images and images[0]["source"]["media_type"] == "image/png"
            assert base64.b64decode(images[0]["source"]["data"]) == png_bytes()
            assert "ERROR boom" in req.all_message_text
            stored = rig.reload().history[0]
            assert [a.name for a in stored.attachments] == list(FILES)
        finally:
            rig.close()


async def test_bedrock_agent_without_vision_gets_only_text(tmp_path: Path, bedrock: FakeBedrock):
    from milk_tui.agents.base import AgentRequest

    bedrock.script(BedrockReply().text("noted"))
    agent = BedrockAgent(agent_config(bedrock, vision=False))
    try:
        request = AgentRequest(slot="primary", prompt="describe", cwd=str(tmp_path), images=False)
        request.attachments = _files(tmp_path)
        async for _ in agent.stream(request):
            pass
    finally:
        await agent.aclose()
    content = bedrock.stream_requests[-1].body["messages"][-1]["content"]
    assert len(content) == 1 and "[attached image: shot.png" in content[0]["text"]
