"""bash against real subprocesses: exit codes, stderr, output caps, timeouts and
cancellation killing the whole process group (grandchildren included)."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from agents.helpers import pid_written, process_gone, process_state
from milk_tui.agents.base import ToolOutcome
from milk_tui.agents.round_backend import ToolCall
from milk_tui.agents.tool_calls import run_calls
from milk_tui.agents.tools import BuiltinToolBox, CompositeToolBox, shell
from milk_tui.agents.tools.paths import Workspace
from milk_tui.testing.waits import WAIT_S


def box(root: Path) -> CompositeToolBox:
    return CompositeToolBox(
        [BuiltinToolBox(root, on_need=lambda g: None, on_record_memory=None, allow_escalate=False)]
    )


async def bash(root: Path, command: str, timeout: float | None = None) -> ToolOutcome:
    args: dict[str, object] = {"command": command}
    if timeout is not None:
        args["timeout_seconds"] = timeout
    return await box(root).call("bash", json.dumps(args))


async def test_stdout_stderr_exit_code_and_cwd(tmp_path: Path) -> None:
    out = await bash(tmp_path, "pwd; echo oops >&2; exit 3")
    assert out.content.strip() == str(tmp_path.resolve())
    assert out.stderr.strip() == "oops" and out.exit_code == 3 and out.is_error
    assert out.envelope() == {"output": out.content, "error": "oops", "exit_code": 3}
    ok = await bash(tmp_path, "echo hi")
    assert ok.envelope() == {"output": "hi\n"} and not ok.is_error
    assert "[exit code 3]" in out.text() and "[stderr]\noops" in out.text()


async def test_flooding_output_is_capped_while_read(tmp_path: Path) -> None:
    out = await bash(tmp_path, "head -c 20000000 /dev/zero | tr '\\0' x; echo; echo END")
    assert len(out.content) < shell.STREAM_CAP_BYTES + 200
    assert "bytes of stdout cut" in out.content and out.content.rstrip().endswith("END")
    assert out.exit_code == 0


async def test_timeout_kills_the_group_grandchild_included(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    # The deadline bounds a hang (the grandchild sleeps an hour); it measures nothing.
    command = f"sh -c 'sleep 3600 & echo $! > {pidfile}; wait' ; echo never"
    out = await asyncio.wait_for(bash(tmp_path, command, 1), WAIT_S)
    assert out.is_error and "timed out after 1s" in out.stderr and "never" not in out.content
    assert await process_gone(int(pidfile.read_text()))


async def test_cancellation_kills_the_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    task = asyncio.ensure_future(bash(tmp_path, f"sleep 60 & echo $! > {pidfile}; wait"))
    grandchild = await pid_written(pidfile)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await process_gone(grandchild)


async def test_loop_tool_timeout_also_kills_the_group(tmp_path: Path) -> None:
    """The per-tool timeout of the loop (shorter than bash's own) cancels the call."""
    pidfile = tmp_path / "pid"
    call = ToolCall("c1", "bash", json.dumps({"command": f"sleep 60 & echo $! > {pidfile}; wait"}))
    runs = [r async for r in run_calls(box(tmp_path), [call], timeout=0.5)]
    assert runs[0].outcome.is_error and "timed out after 0.5s" in runs[0].outcome.content
    assert await process_gone(int(pidfile.read_text()))


async def test_background_child_holding_the_pipe_does_not_hang(tmp_path: Path) -> None:
    # Without the fix the call lasts as long as the child holds the pipe: an hour.
    out = await asyncio.wait_for(bash(tmp_path, "sleep 3600 & echo started"), WAIT_S)
    assert out.content.strip() == "started" and "background processes" in out.stderr


async def test_detached_background_job_survives(tmp_path: Path) -> None:
    """A job whose output goes elsewhere is left running: only pipe holders are stopped."""
    pidfile = tmp_path / "pid"
    out = await bash(tmp_path, f"sleep 30 > /dev/null 2>&1 & echo $! > {pidfile}")
    assert not out.is_error and out.stderr == ""
    pid = int(pidfile.read_text())
    assert process_state(pid) != "Z"
    os.killpg(os.getpgid(pid), 9)


async def test_empty_command_and_timeout_clamp(tmp_path: Path) -> None:
    assert (await bash(tmp_path, "   ")).is_error
    out = await shell.bash(Workspace(tmp_path), "echo $((1+1))", 10_000)
    assert out.content == "2\n"
