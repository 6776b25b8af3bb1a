"""Custom system prompts and prompt tiers, asserted on what a fake OpenAI server received."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from milk_tui.engine.runtime import Runtime, build_runtime
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply


def _write_config(home: Path, agent: dict[str, object]) -> Path:
    path = home / "config.json"
    cfg = {
        "agent": "local",
        "escalation_agent": "demo",
        "agents": [agent, {"name": "demo", "provider": "demo", "model": "demo-large"}],
    }
    path.write_text(json.dumps(cfg))
    return path


def _runtime(home: Path, cwd: Path, url: str, **keys: object) -> Runtime:
    agent = {"name": "local", "provider": "local", "url": url, "model": "m", **keys}
    return build_runtime(cwd=str(cwd), config_path=_write_config(home, agent), new=True)


async def _system_sent(rt: Runtime, srv: FakeOpenAIServer, prompt: str = "hello there") -> str:
    try:
        outcome = await rt.dispatcher.run_turn(prompt, force="primary")
    finally:
        await rt.aclose()
    assert outcome.ok, outcome.error
    messages = srv.chat_requests[-1].json["messages"]
    assert messages[0]["role"] == "system"
    return str(messages[0]["content"])


async def test_prompt_file_placeholders_are_filled_with_the_real_turn_text(milk_home, tmp_path):
    prompt_file = tmp_path / "house-style.md"
    prompt_file.write_text(
        "HOUSE RULES\nfacts:\n{{milk:memory}}\nneed: {{milk:need}}\n"
        "last escalation: {{milk:escalation}}\ntools:\n{{milk:tools}}\nEND"
    )
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["ok"])
        rt = _runtime(milk_home, tmp_path, srv.url, prompt_file=str(prompt_file))
        assert rt.startup_notes == []
        s = rt.dispatcher.state.session
        s.current_need = "ship the parser fix"
        s.current_need_set_at = 1
        s.last_escalation_summary = "refactored the lexer into two modules"
        assert rt.memory is not None
        rt.memory.record("the build server is called hopper", producer="user", session_id=s.id)
        system = await _system_sent(rt, srv, "which build server do we use")
    assert system.startswith(
        "HOUSE RULES\nfacts:\n[Remembered facts]\n- the build server is called hopper"
    )
    assert "need: ship the parser fix\n" in system
    assert "last escalation: refactored the lexer into two modules\n" in system
    assert "\n- read_file: " in system and "\n- current_need: " in system
    assert "{{milk:" not in system
    # the custom prompt comes first, then a blank line, then the built-in role prompt
    assert "END\n\nYou are local, the primary agent" in system


async def test_inline_prompt_without_placeholders_is_put_before_the_role(milk_home, tmp_path):
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["ok"])
        rt = _runtime(milk_home, tmp_path, srv.url, prompt="Answer in French.")
        system = await _system_sent(rt, srv)
    assert system.startswith("Answer in French.\n\nYou are local, the primary agent")


async def test_missing_prompt_file_is_one_warning_and_the_built_in_prompt(milk_home, tmp_path):
    missing = tmp_path / "nope.md"
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["ok"])
        rt = _runtime(milk_home, tmp_path, srv.url, prompt_file=str(missing))
        notes = [n for n in rt.startup_notes if "prompt_file" in n]
        assert notes == [
            f"agent 'local': prompt_file {missing}: not found; using the built-in prompt"
        ]
        warnings: list[str] = []
        rt.bus.add_listener(lambda e: warnings.append(getattr(e, "message", "")))
        system = await _system_sent(rt, srv)
    assert system.startswith("You are local, the primary agent")
    assert not [w for w in warnings if "prompt_file" in w]  # said once, at start-up


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
async def test_unreadable_prompt_file_falls_back(milk_home, tmp_path):
    locked = tmp_path / "locked.md"
    locked.write_text("SECRET STYLE")
    locked.chmod(0)
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["ok"])
        rt = _runtime(milk_home, tmp_path, srv.url, prompt_file=str(locked))
        assert (
            f"agent 'local': prompt_file {locked}: permission denied; using the built-in prompt"
            in rt.startup_notes
        )
        system = await _system_sent(rt, srv)
    assert "SECRET STYLE" not in system and system.startswith("You are local")


async def test_both_set_the_file_wins_with_a_warning(milk_home, tmp_path):
    (tmp_path / "p.md").write_text("FROM THE FILE")
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["ok"])
        rt = _runtime(milk_home, tmp_path, srv.url, prompt="INLINE", prompt_file="p.md")
        assert (
            "agent 'local': both 'prompt' and 'prompt_file' are set; the file wins"
            in rt.startup_notes
        )
        system = await _system_sent(rt, srv)
    assert system.startswith("FROM THE FILE\n\n") and "INLINE" not in system


async def test_an_edited_prompt_file_applies_on_the_next_turn(milk_home, tmp_path):
    path = tmp_path / "p.md"
    path.write_text("VERSION ONE")
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["ok"])
        rt = _runtime(milk_home, tmp_path, srv.url, prompt_file=str(path))
        try:
            await rt.dispatcher.run_turn("first question here", force="primary")
            path.write_text("VERSION TWO, longer")
            await rt.dispatcher.run_turn("second question here", force="primary")
        finally:
            await rt.aclose()
    first, second = (r.json["messages"][0]["content"] for r in srv.chat_requests[-2:])
    assert first.startswith("VERSION ONE") and second.startswith("VERSION TWO, longer")


@pytest.mark.parametrize("tier", ["minimal", "standard", "full"])
async def test_tiers_change_the_request_body(milk_home, tmp_path, tier):
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["ok"])
        rt = _runtime(milk_home, tmp_path, srv.url, system_prompt_tier=tier.upper())
        system = await _system_sent(rt, srv)
    tags = "<milk:need:" in system and "[Milk shared memory]" in system
    rules = "[Working rules]" in system
    assert f"Working directory: {tmp_path}" in system
    assert (tags, rules) == {
        "minimal": (False, False),
        "standard": (True, False),
        "full": (True, True),
    }[tier]
    if tier == "minimal":
        assert len(system) < 200


async def test_unknown_tier_is_one_config_warning_and_the_standard_tier(milk_home, tmp_path):
    rt = _runtime(milk_home, tmp_path, "http://127.0.0.1:9", system_prompt_tier="huge")
    try:
        (msg,) = [n for n in rt.startup_notes if "system_prompt_tier" in n]
        assert "agents[0].system_prompt_tier" in msg and "'huge'" in msg and "\n" not in msg
        assert rt.config.agents[0].system_prompt_tier == "standard"
    finally:
        await rt.aclose()


async def test_a_binary_prompt_file_falls_back_with_one_line(milk_home, tmp_path):
    blob = tmp_path / "blob.md"
    blob.write_bytes(b"\xff\xfe\x00binary")
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["ok"])
        rt = _runtime(milk_home, tmp_path, srv.url, prompt_file=str(blob))
        assert (
            f"agent 'local': prompt_file {blob}: not UTF-8 text; using the built-in prompt"
            in rt.startup_notes
        )
        system = await _system_sent(rt, srv)
    assert system.startswith("You are local")


def test_a_key_of_another_provider_is_named_once(milk_home, tmp_path):
    rt = _runtime(
        milk_home, tmp_path, "http://127.0.0.1:9", settings={"x": 1}, max_steps=3, extra_args="-v"
    )
    notes = [n for n in rt.startup_notes if "applies only" in n]
    assert notes == [
        "agent 'local': key 'settings' applies only to claude-cli, not to provider 'local'; ignored",
        "agent 'local': key 'extra_args' applies only to aider-cli or claude-cli, not to "
        "provider 'local'; ignored",
        "agent 'local': key 'max_steps' applies only to subprocess, not to provider 'local'; "
        "ignored",
    ]


def test_a_go_config_writing_every_zero_value_is_not_warned_about(milk_home, tmp_path):
    rt = _runtime(
        milk_home,
        tmp_path,
        "http://127.0.0.1:9",
        settings=None,
        extra_args=[],
        max_steps=15,
        action_type="code",
        aws_service="",
        prompt_caching=False,
        system_prompt_tier="",
    )
    assert rt.startup_notes == []
