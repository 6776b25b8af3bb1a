"""Helpers the agent tests share: stop a turn part-way, once the stream has really started."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from milk_tui.agents import base as ab


async def stream_until(
    agent: ab.Agent, request: ab.AgentRequest, seen: type, timeout: float
) -> asyncio.Task[None]:
    """Consume ``agent.stream(request)`` in a task; return it once an event of type ``seen`` came."""
    arrived = asyncio.Event()

    async def consume() -> None:
        async for ev in agent.stream(request):
            if isinstance(ev, seen):
                arrived.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(arrived.wait(), timeout)
    return task


async def cancel(task: asyncio.Task[None], timeout: float) -> None:
    """Cancel the consuming task: the cancellation must end it within ``timeout`` seconds."""
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, timeout)


def primary_request(prompt: str, **fields: Any) -> ab.AgentRequest:
    """A turn for the primary slot in the current folder; ``fields`` set the rest."""
    return ab.AgentRequest(slot="primary", prompt=prompt, cwd=".", **fields)
