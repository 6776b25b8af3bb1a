"""Graceful degradation with real fake servers going down and up."""

from __future__ import annotations

import asyncio

import pytest

from milk_tui.agents.base import AgentError
from milk_tui.agents.bedrock import BedrockAgent
from milk_tui.agents.openai_compat import OpenAICompatAgent
from milk_tui.config.settings import AgentConfig
from milk_tui.engine.availability import AvailabilityCache
from milk_tui.engine.dispatch import AgentSlot, Dispatcher
from milk_tui.engine.router import Router
from milk_tui.testing.fake_bedrock import FakeBedrock, Reply
from milk_tui.testing.fake_bedrock import agent_config as bedrock_config
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def local_config(url: str, name: str = "llama") -> AgentConfig:
    return AgentConfig(name=name, provider="local", url=url, model="m")


def openai_agent(url: str, name: str = "llama") -> OpenAICompatAgent:
    return OpenAICompatAgent(local_config(url, name))


def dead_port() -> int:
    """A port a fake server has just left: connections to it are refused."""
    srv = FakeOpenAIServer().start()
    srv.stop()
    return srv.port


def models_probes(srv: FakeOpenAIServer) -> int:
    return sum(1 for r in srv.requests if r.method == "GET")


async def test_probe_is_cached_for_the_ttl():
    with FakeOpenAIServer() as srv:
        clock = Clock()
        cache = AvailabilityCache({"primary": openai_agent(srv.url)}, ttl_s=30, clock=clock)
        assert await cache.check("primary")
        assert await cache.check("primary")
        clock.now += 29.9
        assert await cache.check("primary")
        assert cache.probes == 1 and models_probes(srv) == 1
        clock.now += 0.2
        assert await cache.check("primary")
        assert cache.probes == 2 and models_probes(srv) == 2


async def test_concurrent_checks_share_one_probe():
    with FakeOpenAIServer() as srv:
        cache = AvailabilityCache({"primary": openai_agent(srv.url)})
        results = await asyncio.gather(*(cache.check("primary") for _ in range(20)))
        assert all(results) and cache.probes == 1 and models_probes(srv) == 1


async def test_server_down_then_up_again():
    port = dead_port()
    clock = Clock()
    cache = AvailabilityCache(
        {"primary": openai_agent(f"http://127.0.0.1:{port}")}, ttl_s=30, clock=clock
    )
    assert not await cache.check("primary")
    assert cache.reason("primary") == "not reachable"
    with FakeOpenAIServer(port=port) as again:
        assert not await cache.check("primary")  # still cached as down within the TTL
        clock.now += 31
        assert await cache.check("primary")
        assert models_probes(again) == 1


async def test_apply_fallback_table(fake_bedrock):
    port = dead_port()
    with FakeOpenAIServer() as up:
        llama_up, llama_down = openai_agent(up.url), openai_agent(f"http://127.0.0.1:{port}")
        bedrock_up = BedrockAgent(bedrock_config(fake_bedrock))
        bedrock_down = BedrockAgent(bedrock_config(fake_bedrock, aws_key_id="", aws_secret=""))

        both = AvailabilityCache({"primary": llama_up, "escalation": bedrock_up})
        assert await both.apply_fallback("primary") == ("primary", "", None)
        assert await both.apply_fallback("escalation") == ("escalation", "", None)

        no_primary = AvailabilityCache({"primary": llama_down, "escalation": bedrock_up})
        target, label, notice = await no_primary.apply_fallback("primary")
        assert (target, label) == ("escalation", "fallback")
        assert notice == (
            "primary agent 'llama' unavailable (not reachable); using escalation "
            "agent 'bedrock-claude' instead"
        )

        no_escalation = AvailabilityCache({"primary": llama_up, "escalation": bedrock_down})
        target, label, notice = await no_escalation.apply_fallback("escalation")
        assert (target, label) == ("primary", "fallback")
        assert "escalation agent 'bedrock-claude' unavailable (no AWS credentials found)" in notice
        # Escalation down does not stop primary decisions, and the primary is probed alone.
        fresh = AvailabilityCache({"primary": llama_up, "escalation": bedrock_down})
        assert await fresh.apply_fallback("primary") == ("primary", "", None)
        assert fresh.probes == 1

        none = AvailabilityCache({"primary": llama_down, "escalation": bedrock_down})
        with pytest.raises(AgentError) as info:
            await none.apply_fallback("primary")
        assert str(info.value) == (
            "no agent reachable: primary 'llama' (not reachable), "
            "escalation 'bedrock-claude' (no AWS credentials found)"
        )
    assert fake_bedrock.requests == []  # availability never sends a model request


async def test_probe_exception_counts_as_down():
    class Broken:
        name = "broken"

        async def available(self) -> bool:
            raise RuntimeError("probe exploded")

    cache = AvailabilityCache({"primary": Broken()})
    assert not await cache.check("primary")
    assert cache.reason("primary") == "RuntimeError: probe exploded"


async def test_missing_slot_and_mark_down():
    cache = AvailabilityCache({})
    assert not await cache.check("escalation")
    assert cache.reason("escalation") == "not configured"
    with FakeOpenAIServer() as srv:
        cache = AvailabilityCache({"primary": openai_agent(srv.url)})
        cache.mark_down("primary", "connection refused mid-turn")
        assert not await cache.check("primary") and cache.probes == 0
        cache.invalidate("primary")
        assert await cache.check("primary")


# ----- through the dispatcher, real agents on real sockets ---------------------------------


def dispatcher_with(store, tmp_path, config, llama_url, esc_cfg, events):
    """A dispatcher with a local llama at ``llama_url`` and Bedrock as the escalation."""
    from milk_tui.engine.bus import EventBus

    primary_cfg = local_config(llama_url)
    primary, escalation = OpenAICompatAgent(primary_cfg), BedrockAgent(esc_cfg)
    bus = EventBus()
    bus.add_listener(events.append)
    return Dispatcher(
        config=config,
        store=store,
        session=store.create(str(tmp_path)),
        bus=bus,
        cwd=str(tmp_path),
        primary=AgentSlot("primary", primary_cfg, primary),
        escalation=AgentSlot("escalation", esc_cfg, escalation),
        router=Router(config, str(tmp_path)),
        availability=AvailabilityCache({"primary": primary, "escalation": escalation}),
    )


async def test_primary_down_routes_to_bedrock_and_back_when_up(store, tmp_path, fake_bedrock):
    from milk_tui.config.settings import MilkConfig

    port = dead_port()
    events: list = []
    config = MilkConfig(sticky_escalation=False)
    llama_url, br_cfg = f"http://127.0.0.1:{port}", bedrock_config(fake_bedrock)
    d = dispatcher_with(store, tmp_path, config, llama_url, br_cfg, events)
    fake_bedrock.script(Reply().text("bedrock covers for llama"))
    out = await d.run_turn("ls")
    assert out.ok and out.slot == "escalation" and out.text == "bedrock covers for llama"
    decided = [e for e in events if e.type == "route_decided"][-1]
    assert (decided.target, decided.rule, decided.label) == ("escalation", "fallback", "fallback")
    assert any(
        e.type == "notice" and "primary agent 'llama' unavailable" in e.message for e in events
    )

    with FakeOpenAIServer(port=port) as again:
        again.enqueue(FakeReply(text=["llama is back"]))
        d.availability.invalidate()
        out = await d.run_turn("ls")
        assert out.ok and out.slot == "primary" and out.text == "llama is back"


async def test_both_down_fails_the_turn_and_keeps_running(store, tmp_path, fake_bedrock):
    from milk_tui.config.settings import MilkConfig

    port = dead_port()
    events: list = []
    br_cfg = bedrock_config(fake_bedrock, aws_key_id="", aws_secret="")
    d = dispatcher_with(store, tmp_path, MilkConfig(), f"http://127.0.0.1:{port}", br_cfg, events)
    out = await d.run_turn("hello")
    assert not out.ok and out.error.startswith("no agent reachable: primary 'llama'")
    failed = [e for e in events if e.type == "turn_failed"]
    assert (
        len(failed) == 1
        and "escalation 'bedrock-claude' (no AWS credentials found)" in failed[0].error
    )
    assert d.session.history == [] and not d.busy
    with FakeOpenAIServer(port=port) as again:
        again.enqueue(FakeReply(text=["up again"]))
        d.availability.invalidate()
        out = await d.run_turn("hello")
        assert out.ok and out.text == "up again"


async def test_streaming_never_probes_per_token(store, tmp_path):
    from milk_tui.config.settings import MilkConfig

    with FakeOpenAIServer() as srv:
        srv.enqueue(FakeReply.bulk(500, "t "), FakeReply.bulk(500, "u "))
        events: list = []
        with FakeBedrock() as fb:
            d = dispatcher_with(store, tmp_path, MilkConfig(), srv.url, bedrock_config(fb), events)
            assert (await d.run_turn("ls")).ok
            assert (await d.run_turn("ls -la")).ok
        assert d.availability.probes == 1 and models_probes(srv) == 1


async def test_pinned_primary_is_probed_again_when_the_user_sends(store, tmp_path, fake_bedrock):
    """``/primary`` pinned, its server down, then up: the next prompt goes to the primary at
    once, not to the escalation agent until the cached "down" expires."""
    from milk_tui.config.settings import MilkConfig

    port = dead_port()
    events: list = []
    config = MilkConfig(sticky_escalation=False)
    llama_url, br_cfg = f"http://127.0.0.1:{port}", bedrock_config(fake_bedrock)
    d = dispatcher_with(store, tmp_path, config, llama_url, br_cfg, events)
    assert d.primary_command("") is None and d.pinned == "primary"
    fake_bedrock.script(Reply().text("bedrock covers for llama"))
    out = await d.run_turn("ls")
    assert out.ok and out.slot == "escalation"

    with FakeOpenAIServer(port=port) as again:
        again.enqueue(FakeReply(text=["llama is back"]))
        out = await d.run_turn("ls")  # well within the 30 s the "down" verdict is cached
        assert out.ok and out.slot == "primary" and out.text == "llama is back"
