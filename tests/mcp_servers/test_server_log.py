"""A server's stderr goes to ``<data dir>/mcp/<name>.log`` capped and rotated once: a real
server writing 30 MB to stderr, and the files' sizes on disk."""

from __future__ import annotations

import asyncio
import stat
import time
from pathlib import Path

import pytest

from milk_tui.agents.mcp.manager import McpManager
from milk_tui.agents.mcp.server_log import LOG_CAP_BYTES, ServerLog
from milk_tui.agents.redact import Redactor
from milk_tui.testing import mcp_peers as peers
from milk_tui.testing.mcp_hostile import FLOOD_END

pytestmark = pytest.mark.real_peer

FLOOD_BYTES = 30 * 1024 * 1024


async def wait_for_text(path: Path, text: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and text in path.read_text(errors="replace"):
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{text!r} never reached {path} within {timeout}s")


async def test_30_mb_of_stderr_leaves_two_capped_files(tmp_path: Path) -> None:
    warnings: list[str] = []
    server = peers.hostile("flood", "flood", str(FLOOD_BYTES))
    logs = tmp_path / "mcp"
    m = McpManager([server], log_dir=logs, cwd=str(tmp_path), on_warning=warnings.append)
    try:
        await m.wait_settled(60)
        assert m.statuses()[0].state == "ready" and not warnings, warnings
        log = logs / "flood.log"
        await wait_for_text(log, FLOOD_END)  # the reader thread has copied everything
        out = await m.toolbox().call("mcp__flood__ok", "{}")
        assert out.content == "ok: fine"  # the flood never held the server up
    finally:
        await m.aclose()
    rotated = logs / "flood.log.1"
    assert {p.name for p in logs.iterdir()} - {"sdk.log"} == {"flood.log", "flood.log.1"}
    for f in (log, rotated):
        assert 0 < f.stat().st_size <= LOG_CAP_BYTES
        assert stat.S_IMODE(f.stat().st_mode) == 0o600
    assert rotated.read_text().count("E" * 1023 + "\n") > 1000


def test_a_secret_split_across_writes_is_masked_and_notes_rotate(tmp_path: Path) -> None:
    redact = Redactor("sk-split-across-reads-1234")
    log = ServerLog(tmp_path / "s.log", redact, cap=200)
    log.note("--- starting s")
    pipe = log.capture()
    pipe.errlog.write("starting with sk-split-acr")
    pipe.errlog.flush()
    pipe.errlog.write("oss-reads-1234 in my environment\n")
    pipe.errlog.flush()
    pipe.errlog.write("x" * 190 + "\n")
    pipe.close_ours()
    assert pipe.wait_done(10)
    assert (tmp_path / "s.log.1").read_text() == (
        "--- starting s\nstarting with *** in my environment\n"
    )
    assert (tmp_path / "s.log").read_text() == "x" * 190 + "\n"
    assert pipe.last_line == "x" * 190


def test_the_quoted_last_line_is_inert(tmp_path: Path) -> None:
    pipe = ServerLog(tmp_path / "e.log", Redactor()).capture()
    pipe.errlog.write("fine\n\x1b]0;title\x07\x1b[2Jfatal: gone\n\n")
    pipe.close_ours()
    assert pipe.wait_done(10)
    assert "fatal: gone" in pipe.last_line and "\x1b" not in pipe.last_line
    assert "\x07" not in pipe.last_line
