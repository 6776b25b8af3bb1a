"""The one tool loop, against a scripted round backend (no wire format, no network)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable

import pytest

from agents.helpers import primary_request
from milk_tui.agents import base as ab
from milk_tui.agents.round_backend import Chunk, RoundResult, ToolCall, ToolRun
from milk_tui.agents.tool_loop import LoopSettings, ToolLoop, trail_digest
from milk_tui.agents.tools import LocalToolBox, Tool


class Replay:
    """A RoundParser that turns each scripted item into the chunk it names."""

    def __init__(self, result: RoundResult) -> None:
        self.done = False
        self._result = result

    def feed(self, item: Chunk) -> list[Chunk]:
        return [item]

    def close(self) -> list[Chunk]:
        return []

    def result(self) -> RoundResult:
        return self._result


async def _items(result: RoundResult) -> AsyncIterator[Chunk]:
    if result.reasoning:
        yield ab.ThinkingChunk(result.reasoning)
    if result.text:
        yield ab.TextChunk(result.text)


class ScriptedRounds:
    """A RoundBackend whose rounds are scripted; it records what the loop appends."""

    name = "scripted"

    def __init__(self, *rounds: RoundResult | Callable[[int], RoundResult]) -> None:
        self.rounds = list(rounds)
        self.calls = 0
        self.log: list[tuple[str, object]] = []

    def start_turn(self, request: ab.AgentRequest, tools: list[ab.ToolSpec]) -> list[str]:
        self.log.append(("start", [t.name for t in tools]))
        return []

    @contextlib.asynccontextmanager
    async def open_round(self, conv: list[str]) -> AsyncIterator[tuple[AsyncIterator, Replay]]:
        spec = self.rounds[min(self.calls, len(self.rounds) - 1)]
        result = spec(self.calls) if callable(spec) else spec
        self.calls += 1
        yield _items(result), Replay(result)

    def add_assistant_turn(self, conv: list[str], result: RoundResult) -> None:
        self.log.append(("assistant", [c.call_id for c in result.tool_calls]))

    def add_tool_results(self, conv: list[str], runs: list[ToolRun]) -> None:
        self.log.append(("results", [(r.call.call_id, r.outcome.content) for r in runs]))

    def error(self, message: str) -> ab.AgentError:
        return ab.AgentError(f"agent 'scripted': {message}", agent="scripted")


def calls(*pairs: tuple[str, dict]) -> list[ToolCall]:
    return [ToolCall(f"c{i}", name, json.dumps(args)) for i, (name, args) in enumerate(pairs)]


def box(**handlers: Callable) -> LocalToolBox:
    return LocalToolBox(
        [Tool(ab.ToolSpec(name, name, {"type": "object"}), fn) for name, fn in handlers.items()]
    )


async def run(
    backend: ScriptedRounds, tools: LocalToolBox | None = None, **settings: object
) -> list:
    loop = ToolLoop(backend, LoopSettings(**settings))
    request = primary_request("go", tools=tools)
    return [ev async for ev in loop.run(request)]


class HangingTool:
    """A tool that never finishes on its own; it records that it started and was cancelled."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()

    async def __call__(self, args: dict) -> ab.ToolOutcome:
        self.started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        return ab.ToolOutcome("never")


def texts(events: list) -> str:
    return "".join(e.text for e in events if isinstance(e, ab.TextChunk))


async def test_an_answer_without_tools_ends_the_turn() -> None:
    usage = ab.UsageEvent("m", 10, 2)
    events = await run(ScriptedRounds(RoundResult(text="hi", finish_reason="stop", usage=usage)))
    assert events == [ab.TextChunk("hi"), usage, ab.Finished(stop_reason="stop")]


async def test_reasoning_only_round_is_promoted_to_the_answer() -> None:
    events = await run(ScriptedRounds(RoundResult(reasoning="it is 4", finish_reason="stop")))
    assert events == [
        ab.ThinkingChunk("it is 4"),
        ab.TextChunk("it is 4"),
        ab.Finished(stop_reason="stop", reasoning_promoted=True),
    ]


async def test_calls_run_concurrently_and_report_in_call_order() -> None:
    fast_done = asyncio.Event()
    started: list[str] = []

    async def slow(args: dict) -> ab.ToolOutcome:
        started.append("slow")
        await asyncio.wait_for(fast_done.wait(), 5)  # would hang if run one after the other
        return ab.ToolOutcome("slow result")

    async def fast(args: dict) -> ab.ToolOutcome:
        started.append("fast")
        fast_done.set()
        return ab.ToolOutcome("fast result")

    backend = ScriptedRounds(
        RoundResult(tool_calls=calls(("slow", {}), ("fast", {}))), RoundResult(text="done")
    )
    events = await run(backend, box(slow=slow, fast=fast))
    assert started == ["slow", "fast"]
    shown = [(type(e).__name__, e.call_id) for e in events if hasattr(e, "call_id")]
    assert shown == [
        ("ToolCallEvent", "c0"),
        ("ToolCallEvent", "c1"),
        ("ToolResultEvent", "c0"),
        ("ToolResultEvent", "c1"),
    ]
    assert backend.log == [
        ("start", ["slow", "fast"]),
        ("assistant", ["c0", "c1"]),
        ("results", [("c0", "slow result"), ("c1", "fast result")]),
    ]
    assert texts(events) == "done"


async def test_slow_and_broken_tools_become_error_results() -> None:
    async def boom(args: dict) -> ab.ToolOutcome:
        raise RuntimeError("disk on fire")

    backend = ScriptedRounds(
        RoundResult(tool_calls=calls(("hang", {}), ("boom", {}))), RoundResult(text="ok")
    )
    events = await run(backend, box(hang=HangingTool(), boom=boom), tool_timeout=0.1)
    results = [e for e in events if isinstance(e, ab.ToolResultEvent)]
    assert [(r.content, r.is_error) for r in results] == [
        ('tool "hang" timed out after 0.1s', True),
        ("tool 'boom' failed: RuntimeError: disk on fire", True),
    ]


async def test_calls_without_a_toolbox_are_answered_not_run() -> None:
    backend = ScriptedRounds(RoundResult(tool_calls=calls(("bash", {}))), RoundResult(text="ok"))
    events = await run(backend)
    (result,) = [e for e in events if isinstance(e, ab.ToolResultEvent)]
    assert result.is_error and result.content == "tool 'bash' is not available"


async def test_a_round_repeating_made_calls_ends_with_the_trail_digest() -> None:
    async def read(args: dict) -> ab.ToolOutcome:
        return ab.ToolOutcome("contents")

    same = RoundResult(tool_calls=calls(("read", {"path": "a"})))
    backend = ScriptedRounds(same, same)
    events = await run(backend, box(read=read), max_iterations=5)
    assert backend.calls == 2
    assert events[-1] == ab.Finished(stop_reason="repeated_tool_calls")
    assert texts(events) == trail_digest(
        [ToolRun(calls(("read", {"path": "a"}))[0], ab.ToolOutcome("contents"))]
    )
    assert texts(events).startswith("[the model ended its turn without a summary")


async def test_an_empty_answer_after_tools_shows_the_trail() -> None:
    async def read(args: dict) -> ab.ToolOutcome:
        return ab.ToolOutcome("x" * 500)

    backend = ScriptedRounds(RoundResult(tool_calls=calls(("read", {}))), RoundResult())
    events = await run(backend, box(read=read))
    assert texts(events) == (
        "[the model ended its turn without a summary; tool activity:]\n"
        "- read({})\n"
        f"  → {'x' * 300}…"
    )


async def test_escalate_ends_the_turn_and_cancels_running_tools() -> None:
    slow = HangingTool()

    async def escalate(args: dict) -> ab.ToolOutcome:
        return ab.ToolOutcome("handing off", escalate_reason="too hard")

    backend = ScriptedRounds(RoundResult(tool_calls=calls(("escalate", {}), ("slow", {}))))
    events = await run(backend, box(escalate=escalate, slow=slow))
    assert events[-1] == ab.Finished(stop_reason="escalate", escalation_reason="too hard")
    assert slow.cancelled.is_set()
    assert backend.calls == 1 and ("results", [("c0", "handing off")]) not in backend.log


async def test_iteration_cap_counts_model_calls() -> None:
    async def read(args: dict) -> ab.ToolOutcome:
        return ab.ToolOutcome("more")

    backend = ScriptedRounds(lambda n: RoundResult(tool_calls=calls(("read", {"n": n}))))
    with pytest.raises(
        ab.AgentError, match=r"^agent 'scripted': exceeded maximum tool iterations \(3\)$"
    ):
        await run(backend, box(read=read), max_iterations=3)
    assert backend.calls == 3


async def test_cancelling_the_turn_cancels_running_tools() -> None:
    slow = HangingTool()
    backend = ScriptedRounds(RoundResult(tool_calls=calls(("slow", {}))))
    task = asyncio.create_task(run(backend, box(slow=slow)))
    await asyncio.wait_for(slow.started.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert slow.cancelled.is_set()


async def test_before_tool_sees_every_call_in_order_and_can_replace_it() -> None:
    seen: list[str] = []
    ran: list[str] = []

    async def before(call: ToolCall) -> ab.ToolOutcome | None:
        seen.append(call.call_id)
        return ab.ToolOutcome("denied: not now", is_error=True) if call.name == "write" else None

    async def read(args: dict) -> ab.ToolOutcome:
        ran.append("read")
        return ab.ToolOutcome("contents")

    async def write(args: dict) -> ab.ToolOutcome:
        ran.append("write")
        return ab.ToolOutcome("written")

    backend = ScriptedRounds(
        RoundResult(tool_calls=calls(("write", {}), ("read", {}))), RoundResult(text="ok")
    )
    events = await run(backend, box(read=read, write=write), before_tool=before)
    assert seen == ["c0", "c1"] and ran == ["read"]
    results = [(e.content, e.is_error) for e in events if isinstance(e, ab.ToolResultEvent)]
    assert results == [("denied: not now", True), ("contents", False)]


async def test_usage_is_reported_per_round_and_summed_for_the_turn() -> None:
    async def read(args: dict) -> ab.ToolOutcome:
        return ab.ToolOutcome("x")

    backend = ScriptedRounds(
        RoundResult(tool_calls=calls(("read", {})), usage=ab.UsageEvent("m", 10, 3, cache_read=5)),
        RoundResult(text="ok", usage=ab.UsageEvent("m", 20, 4, cost_usd=0.5)),
    )
    loop = ToolLoop(backend, LoopSettings())
    request = primary_request("go", tools=box(read=read))
    events = [ev async for ev in loop.run(request)]
    assert [e.prompt_tokens for e in events if isinstance(e, ab.UsageEvent)] == [10, 20]
    assert loop.usage == ab.UsageEvent("m", 30, 7, cache_read=5, cost_usd=0.5)


def test_tool_calls_are_the_events_the_user_sees() -> None:
    assert ToolCall is ab.ToolCallEvent
