"""http_get / http_request against a local threaded HTTP server."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from milk_tui.agents.base import ToolOutcome
from milk_tui.agents.tools import BuiltinToolBox, CompositeToolBox
from milk_tui.agents.tools import http as http_tool


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:  # keep test output quiet
        pass

    def _send(self, status: int, body: bytes, ctype: str = "text/plain") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if self.path == "/big":
            self._send(200, b"a" * 100_000)
        elif self.path == "/endless":
            self.send_response(200)
            self.end_headers()
            try:
                while True:
                    self.wfile.write(b"b" * 65536)
            except OSError:
                return
        elif self.path == "/to-file":
            self.send_response(302)
            self.send_header("Location", "file:///etc/passwd")
            self.end_headers()
        elif self.path == "/to-hello":
            self.send_response(302)
            self.send_header("Location", "/hello")
            self.end_headers()
        elif self.path == "/binary":
            self._send(200, b"\x00\x01\x02" * 10, "application/octet-stream")
        elif self.path == "/missing":
            self._send(404, b"not here")
        else:
            self._send(200, b"hello " + self.headers.get("X-Who", "world").encode())

    def do_POST(self) -> None:  # noqa: N802
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        self._send(201, json.dumps({"got": body.decode()}).encode(), "application/json")


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()


async def call(tmp_path: Path, name: str, **args: object) -> ToolOutcome:
    box = BuiltinToolBox(
        tmp_path, on_need=lambda g: None, on_record_memory=None, allow_escalate=False
    )
    return await CompositeToolBox([box]).call(name, json.dumps(args))


async def test_get_and_status(tmp_path: Path, base_url: str) -> None:
    out = await call(tmp_path, "http_get", url=f"{base_url}/hello")
    assert out.content.startswith("HTTP 200 OK") and out.content.endswith("hello world")
    assert out.exit_code == 200 and out.envelope()["exit_code"] == 200
    missing = await call(tmp_path, "http_get", url=f"{base_url}/missing")
    assert missing.exit_code == 404 and "not here" in missing.content
    followed = await call(tmp_path, "http_get", url=f"{base_url}/to-hello")
    assert followed.content.endswith("hello world")


async def test_request_with_method_headers_body(tmp_path: Path, base_url: str) -> None:
    out = await call(
        tmp_path, "http_request", url=f"{base_url}/x", method="post", body="ping",
        headers={"X-Who": "me"},
    )  # fmt: skip
    assert out.exit_code == 201 and '{"got": "ping"}' in out.content
    hdr = await call(tmp_path, "http_request", url=f"{base_url}/", headers={"X-Who": "me"})
    assert hdr.content.endswith("hello me")
    bad = await call(tmp_path, "http_request", url=f"{base_url}/", method="BREW")
    assert bad.is_error and "method" in bad.content


async def test_size_cap_and_endless_body(tmp_path: Path, base_url: str) -> None:
    out = await call(tmp_path, "http_get", url=f"{base_url}/big", max_bytes=1000)
    assert "a" * 1000 in out.content and "a" * 1001 not in out.content
    assert "truncated: showed the first 1000 bytes of 100000" in out.content
    endless = await call(tmp_path, "http_get", url=f"{base_url}/endless", max_bytes=10**9)
    assert len(endless.content) < http_tool.MAX_BYTES_LIMIT + 300


async def test_refusals_are_tool_errors(tmp_path: Path, base_url: str) -> None:
    for url in ["file:///etc/passwd", "ftp://example.com/x", "not a url"]:
        out = await call(tmp_path, "http_get", url=url)
        assert out.is_error and "http" in out.content
    redirect = await call(tmp_path, "http_get", url=f"{base_url}/to-file")
    assert redirect.is_error and "non-http" in redirect.content
    binary = await call(tmp_path, "http_get", url=f"{base_url}/binary")
    assert "binary body, 30 bytes" in binary.content
    down = await call(tmp_path, "http_get", url="http://127.0.0.1:9/")
    assert down.is_error and "ConnectError" in down.content
