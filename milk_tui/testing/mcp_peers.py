"""MCP servers for tests and benchmarks: config entries for the npm reference server
(``mcp-server-everything``) and for ``milk_tui/testing/mcp_server.py``, and HTTP servers
run as real processes on a free port."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from milk_tui.config.mcp import McpServerConfig
from milk_tui.testing.llama_server import free_port

REPO = Path(__file__).resolve().parents[2]
EVERYTHING_BIN = REPO / ".npm-claude" / "node_modules" / ".bin" / "mcp-server-everything"
OWN_SERVER = [sys.executable, "-m", "milk_tui.testing.mcp_server"]
START_S = 20.0
"""A Python server on the SDK imports for ~1 s alone; under a loaded test run, longer."""


def everything_available() -> bool:
    return EVERYTHING_BIN.exists()


def _env() -> dict[str, str]:
    # The SDK passes a server only a few safe variables; the test server needs the package.
    return {"PYTHONPATH": os.environ.get("PYTHONPATH", "") or str(REPO)}


def everything(name: str = "every", **kw: Any) -> McpServerConfig:
    return McpServerConfig(
        name=name, command=str(EVERYTHING_BIN), args=["stdio"], connect_timeout=START_S, **kw
    )


def own(name: str, mode: str = "ok", **kw: Any) -> McpServerConfig:
    kw.setdefault("connect_timeout", START_S)
    return McpServerConfig(
        name=name, command=OWN_SERVER[0], args=[*OWN_SERVER[1:], mode], env=_env(), **kw
    )


def hostile(name: str, mode: str, arg: str = "", **kw: Any) -> McpServerConfig:
    """A server of ``milk_tui/testing/mcp_hostile.py`` (hand-written JSON-RPC, fast start)."""
    kw.setdefault("connect_timeout", START_S)
    env = {**_env(), **kw.pop("env", {})}
    argv = [sys.executable, "-m", "milk_tui.testing.mcp_hostile", mode, *([arg] if arg else [])]
    return McpServerConfig(name=name, command=argv[0], args=argv[1:], env=env, **kw)


@contextlib.contextmanager
def http_server(argv: list[str], port: int, env: dict[str, str] | None = None) -> Iterator[str]:
    """Run ``argv`` until it listens on ``port``; yields its ``/mcp`` URL."""
    full_env = {**os.environ, **_env(), **(env or {})}
    proc = subprocess.Popen(
        argv, env=full_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + START_S
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            if proc.poll() is not None:
                raise RuntimeError(f"{argv[0]} exited with {proc.returncode}")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def everything_http() -> contextlib.AbstractContextManager[str]:
    port = free_port()
    return http_server([str(EVERYTHING_BIN), "streamableHttp"], port, {"PORT": str(port)})


def own_http(
    token: str = "", *, oauth: bool = False, token_ttl_s: int = 0
) -> contextlib.AbstractContextManager[str]:
    port = free_port()
    extra = (["--token", token] if token else []) + (["--oauth"] if oauth else [])
    extra += ["--token-ttl", str(token_ttl_s)] if token_ttl_s else []
    return http_server([*OWN_SERVER, "ok", "--http", str(port), *extra], port)
