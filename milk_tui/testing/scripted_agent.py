"""An in-process agent that plays back scripted events — the fast unit layer's backend.

Each call to ``stream`` pops the next script (a list of AgentEvents, optionally ending in
an exception instance to raise, with ``Hold`` steps where the stream waits until the test
lets it go on) and records the AgentRequest it was given, so tests can
assert exactly what the dispatcher handed the agent (e.g. that the history never contains
the current prompt).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field

from milk_tui.agents.base import AgentEvent, AgentRequest, Finished, TextChunk


@dataclass
class Hold:
    """A script step: the stream stops here until the test calls ``release()`` — a turn
    that is "still running" for exactly as long as the test needs, on any machine."""

    event: asyncio.Event = field(default_factory=asyncio.Event)
    reached: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the stream got here (``await hold.reached.wait()`` in the test)."""

    def release(self) -> None:
        self.event.set()


Script = list[AgentEvent | BaseException | Hold]


def say(*chunks: str, session_id: str = "", escalation_reason: str = "") -> Script:
    return [
        *(TextChunk(c) for c in chunks),
        Finished(session_id=session_id, escalation_reason=escalation_reason),
    ]


@dataclass
class ScriptedAgent:
    name: str = "scripted"
    model: str = "scripted-model"
    scripts: list[Script] = field(default_factory=list)
    delay: float = 0.0
    up: bool = True
    requests: list[AgentRequest] = field(default_factory=list)
    history_lens_seen: list[int] = field(default_factory=list)

    def push(self, *scripts: Iterable[AgentEvent | BaseException | Hold]) -> None:
        self.scripts.extend(list(s) for s in scripts)

    async def available(self) -> bool:
        return self.up

    async def aclose(self) -> None:
        return None

    async def stream(self, request: AgentRequest) -> AsyncIterator[AgentEvent]:
        self.requests.append(request)
        if request.on_wire is not None:  # the script has the request at once
            request.on_wire()
        script = self.scripts.pop(0) if self.scripts else say(f"echo: {request.prompt}")
        for item in script:
            if self.delay:
                await asyncio.sleep(self.delay)
            if isinstance(item, Hold):
                item.reached.set()
                await item.event.wait()
                continue
            if isinstance(item, BaseException):
                raise item
            yield item
