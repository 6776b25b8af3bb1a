"""A server that never finishes starting is given up at its ``connect_timeout``, named in
one line, and ``milk-tui -p`` answers without its tools: real ``-p`` subprocesses against the
fake OpenAI server, with hostile servers that never answer ``initialize`` or ``tools/list``
(``milk_tui/testing/mcp_hostile.py``) and an HTTP peer that accepts and never says a word."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from milk_tui.config.mcp import McpServerConfig
from milk_tui.testing import mcp_peers as peers
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from tests.mcp_servers.test_headless import milk, write_config

pytestmark = pytest.mark.real_peer

DEADLINE_S = 2


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A TCP port that accepts connections and never sends a byte."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            held.append(conn)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        listener.close()
        for c in held:
            c.close()


def run_headless(home: Path, cwd: Path, server: McpServerConfig) -> tuple[int, str, list[str]]:
    with FakeOpenAIServer() as srv:
        write_config(home, srv, [server])
        srv.enqueue(FakeReply(text=["answered anyway"]))
        code, out, err = milk(home, cwd)
        offered = [t["function"]["name"] for t in srv.chat_requests[0].json["tools"]]
    assert not [n for n in offered if n.startswith("mcp__")]
    return code, out, err.splitlines()


@pytest.mark.parametrize(
    ("mode", "waited_for"), [("mute", "initialize"), ("no-list", "tools/list")]
)
def test_a_stdio_server_that_never_answers(
    milk_home: Path, tmp_path: Path, mode: str, waited_for: str
) -> None:
    server = peers.hostile("silent", mode, connect_timeout=DEADLINE_S)
    code, out, err = run_headless(milk_home, tmp_path, server)
    assert (code, out.strip()) == (0, "answered anyway"), err
    assert err == [
        f"milk-tui: mcp server 'silent' is down: no answer to {waited_for} within {DEADLINE_S}s"
    ]


@pytest.mark.parametrize("transport", ["sse", "http"])
def test_an_http_server_that_never_answers(
    milk_home: Path, tmp_path: Path, silent_port: int, transport: str
) -> None:
    """An SSE server that never sends its endpoint used to hold the start past any
    ``connect_timeout`` (the wait is inside the SDK's transport, before ``initialize``)."""
    url = f"http://127.0.0.1:{silent_port}/{'sse' if transport == 'sse' else 'mcp'}"
    server = McpServerConfig(name="mum", transport=transport, url=url, connect_timeout=DEADLINE_S)
    code, out, err = run_headless(milk_home, tmp_path, server)
    assert (code, out.strip()) == (0, "answered anyway"), err
    (line,) = err
    assert line.startswith("milk-tui: mcp server 'mum' is down: ")
    assert line.endswith(f"within {DEADLINE_S}s")


def test_a_token_cmd_that_hangs_is_bounded_by_the_deadline(
    milk_home: Path, tmp_path: Path, silent_port: int
) -> None:
    server = McpServerConfig(
        name="slowtok",
        url=f"http://127.0.0.1:{silent_port}/mcp",
        auth="token_cmd",
        token_cmd="sleep 600",
        connect_timeout=DEADLINE_S,
    )
    code, out, err = run_headless(milk_home, tmp_path, server)
    assert (code, out.strip()) == (0, "answered anyway"), err
    assert err == [
        f"milk-tui: mcp server 'slowtok' is down: could not connect and start within {DEADLINE_S}s"
    ]


async def test_a_connect_timeout_longer_than_the_whole_wait_is_named(tmp_path: Path) -> None:
    """``-p`` waits for servers at most ``HEADLESS_WAIT_S`` in all; one configured to take
    longer is named when that runs out, not left unsaid."""
    from milk_tui.agents.mcp.manager import McpManager

    warnings: list[str] = []
    server = peers.hostile("patient", "mute", connect_timeout=600)
    m = McpManager([server], log_dir=tmp_path, cwd=str(tmp_path), on_warning=warnings.append)
    try:
        await m.wait_settled(1.5)
    finally:
        await m.aclose()
    assert warnings == [
        "mcp server 'patient' has not started within 1.5s; going on without its tools"
    ]
