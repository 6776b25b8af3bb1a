"""Nothing blocks the event loop between Enter and the request
(docs/adr/0017-nothing-blocks-between-enter-and-the-request.md): the request is built in a
worker thread, and the HTTP agents' connections are opened before the first prompt."""

from __future__ import annotations

import random
import socket
import threading
from pathlib import Path

from milk_tui.agents.base import ChatMessage
from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.engine.context import assemble_messages
from milk_tui.engine.history import build_agent_history, messages_size, trim_history
from milk_tui.engine.runtime import Runtime, build_runtime
from milk_tui.memory.service import MemoryService
from milk_tui.model.session import Session, Turn, build_brick
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply


def _runtime(url: str, cwd: Path) -> Runtime:
    cfg = MilkConfig(
        agent="fake",
        escalation_agent="demo-claude",
        agents=[
            AgentConfig(name="fake", provider="local", url=url, model="fake-model"),
            AgentConfig(name="demo-claude", provider="demo", model="demo-large"),
        ],
    )
    return build_runtime(cwd=str(cwd), config=cfg, new=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_fact_selection_runs_in_a_worker_thread(tmp_path, monkeypatch):
    seen: list[int] = []
    select = MemoryService.select_for_prompt

    def spy(self, *a, **kw):  # type: ignore[no-untyped-def]
        seen.append(threading.get_ident())
        return select(self, *a, **kw)

    monkeypatch.setattr(MemoryService, "select_for_prompt", spy)
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["hello"])
        rt = _runtime(srv.url, tmp_path)
        try:
            outcome = await rt.dispatcher.run_turn("what is a monad?", force="primary")
        finally:
            await rt.aclose()
    assert outcome.ok and outcome.text == "hello"
    assert seen and threading.get_ident() not in seen


async def test_preconnect_opens_the_connection_the_first_turn_reuses(tmp_path):
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["warm"])
        rt = _runtime(srv.url, tmp_path)
        try:
            await rt.preconnect()
            assert [r.path for r in srv.requests] == ["/v1/models"]
            availability = rt.dispatcher.availability
            assert availability is not None and availability.probes == 1
            outcome = await rt.dispatcher.run_turn("hello there", force="primary")
        finally:
            await rt.aclose()
    assert outcome.ok
    assert availability.probes == 1  # the turn used the launch-time verdict
    assert srv.connections == 1  # and the connection opened at launch
    assert [r.path for r in srv.requests] == ["/v1/models", "/v1/chat/completions"]


async def test_preconnect_to_a_server_that_is_down_is_silent_and_leaves_no_verdict(tmp_path):
    port = _free_port()
    rt = _runtime(f"http://127.0.0.1:{port}", tmp_path)
    try:
        await rt.preconnect()  # nothing listens: no exception, no notice
        availability = rt.dispatcher.availability
        assert availability is not None and availability.reason("primary") == ""
        with FakeOpenAIServer(port=port) as srv:  # the server comes up before the first prompt
            srv.default_reply = FakeReply(text=["up now"])
            outcome = await rt.dispatcher.run_turn("are you there?", force="primary")
    finally:
        await rt.aclose()
    assert outcome.ok and outcome.text == "up now"


async def test_preconnect_skips_agents_without_a_connection(tmp_path):
    rt = build_runtime(cwd=str(tmp_path), demo=True, new=True)
    try:
        await rt.preconnect()
        availability = rt.dispatcher.availability
        assert availability is not None and availability.probes == 0
    finally:
        await rt.aclose()


def _reference_trim(msgs, budget, overhead, other_first):  # type: ignore[no-untyped-def]
    """The rule step by step, as it reads: re-measure after every drop."""
    limit = max(1, budget - overhead)
    size = messages_size(msgs)
    if budget <= 0 or size <= limit:
        return msgs, False
    msgs = list(msgs)
    i = 0
    while other_first and messages_size(msgs) > limit and i < len(msgs):
        nxt = msgs[i + 1] if i + 1 < len(msgs) else None
        m = msgs[i]
        if m.role == "system" or (
            m.role == "user" and (nxt is None or nxt.role != "assistant" and nxt.role != "tool")
        ):
            msgs.pop(i)
            continue
        i += 1
    while messages_size(msgs) > limit and msgs:
        msgs.pop(0)
        while msgs and msgs[0].role != "user":
            msgs.pop(0)
    return msgs, True


def test_one_pass_trim_keeps_the_step_by_step_rule():
    rng = random.Random(7)
    for _ in range(2000):
        msgs = [
            ChatMessage(
                rng.choice(["user", "assistant", "system", "tool"]), "x" * rng.randint(0, 30)
            )
            for _ in range(rng.randint(0, 30))
        ]
        args = (rng.randint(0, 400), rng.randint(0, 50), rng.random() < 0.5)
        assert trim_history(msgs, *args[:2], other_agents_first=args[2]) == _reference_trim(
            msgs, *args
        )


def test_summary_brick_of_a_long_session_is_its_newest_turns_that_fit():
    history = []
    for i in range(3000):
        history += [
            Turn("user", f"question {i}", agent="primary"),
            Turn("assistant", f"answer {i}", agent="primary"),
        ]
    brick = build_brick(history, "primary", 200)
    assert brick.endswith("User: question 2999\nAssistant (primary): answer 2999\n")
    assert len(brick) <= 200 and "question 2990" not in brick
    assert build_brick(history[-10:], "primary", 200) == brick


def test_the_primary_history_is_built_from_its_newest_turns_as_if_whole():
    rng = random.Random(11)
    for _ in range(1500):
        s = Session(id="s", cwd="/tmp")
        for _ in range(rng.randint(0, 40)):
            role = rng.choice(["user", "assistant", "assistant", "tool_result"])
            agent = rng.choice(["primary", "escalation"])
            s.history.append(Turn(role, "w" * rng.randint(0, 40), agent=agent))
        budget, start = rng.randint(0, 600), rng.randint(0, 5)
        head = ["need block" * rng.randint(0, 3)]
        whole = build_agent_history(s.history, "primary", start=start)
        overhead = messages_size([ChatMessage("system", h) for h in head if h]) + 6
        expected = trim_history(whole, budget, overhead)
        built = assemble_messages(
            s,
            self_agent="primary",
            pinned=head,
            budget=budget,
            system_prompt="system",
            history_start=start,
        )
        assert built.messages[len([h for h in head if h]) :] == expected[0]
        assert built.trimmed == expected[1]


async def test_the_turn_says_when_its_request_is_on_its_way(tmp_path):
    """``request_sent`` once per turn, after the route and before the reply's first text:
    the TUI paints the turn's start after it (docs/adr/0045-the-request-before-the-repaint.md)."""
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["hello"])
        rt = _runtime(srv.url, tmp_path)
        seen: list[str] = []
        rt.bus.add_listener(lambda e: seen.append(e.type))
        try:
            outcome = await rt.dispatcher.run_turn("what is a monad?", force="primary")
        finally:
            await rt.aclose()
    assert outcome.ok
    assert seen.count("request_sent") == 1
    at = seen.index("request_sent")
    assert seen.index("route_decided") < at < seen.index("text_delta"), seen
