"""Helpers the agent tests share: stop a turn part-way once the stream has really started;
wait for a pid a test command wrote, and for that process to be gone."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from milk_tui.agents import base as ab
from milk_tui.testing.waits import until


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


async def pid_written(pid_file: Path) -> int:
    """The pid a test command wrote to ``pid_file`` (waiting for it to be written)."""
    await until(
        None, lambda: pid_file.exists() and pid_file.read_text().strip(), what=str(pid_file)
    )
    return int(pid_file.read_text())


def process_state(pid: int) -> str:
    """The /proc state letter of ``pid``; "Z" once it is gone or a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except OSError:
        return "Z"


async def process_gone(pid: int) -> bool:
    """True once ``pid`` has exited (waits for the kernel to reap it; fails naming the
    process if it never does)."""
    await until(None, lambda: process_state(pid) == "Z", what=f"process {pid} to exit")
    return True
