"""A scriptable fake Anthropic Messages API on 127.0.0.1 for driving the real Claude CLI.

Tests point the npm-installed ``claude`` at it (``ANTHROPIC_BASE_URL``) and then assert on
what the CLI actually SENT (system prompt, messages) — the only honest way to check our
``--append-system-prompt-file`` / ``--resume`` wiring.  Behaviour verified against the CLI
in ``reference/real-test-peers.md`` §2: it probes ``HEAD /`` first and posts to
``/v1/messages?beta=true`` with ``stream: true``.

The server runs in a daemon thread (stdlib ``ThreadingHTTPServer``) so it works the same
from sync and asyncio tests.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

# Anthropic error "type" per HTTP status (docs.anthropic.com errors page).
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


# ----- what a reply is made of ----------------------------------------------------------


@dataclass
class TextBlock:
    text: str
    chunk_size: int = 0
    """0 = split into ~3 pieces so the CLI emits several text_delta stream events."""


@dataclass
class ThinkingBlock:
    thinking: str


@dataclass
class ToolUseBlock:
    name: str
    input: dict[str, Any]
    id: str = field(default_factory=lambda: "toolu_" + uuid.uuid4().hex[:20])


Block = TextBlock | ThinkingBlock | ToolUseBlock


@dataclass
class Reply:
    blocks: list[Block] = field(default_factory=list)
    status: int = 200
    error_message: str = ""
    input_tokens: int = 10
    output_tokens: int = 8
    cache_read: int = 0
    cache_creation: int = 0
    delay_s: float = 0.0
    """Sleep between SSE events (cancellation tests want a reply that takes a while)."""

    @classmethod
    def text(cls, text: str, **kw: Any) -> Reply:
        return cls(blocks=[TextBlock(text)], **kw)

    @classmethod
    def tool(cls, name: str, input: dict[str, Any], **kw: Any) -> Reply:
        return cls(blocks=[ToolUseBlock(name, input)], **kw)

    @classmethod
    def error(cls, status: int, message: str = "") -> Reply:
        return cls(status=status, error_message=message or f"fake {status}")

    @property
    def stop_reason(self) -> str:
        return "tool_use" if any(isinstance(b, ToolUseBlock) for b in self.blocks) else "end_turn"


# ----- what the CLI sent ------------------------------------------------------------------


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def system_text(self) -> str:
        """The whole system prompt as one string (the CLI sends a list of text blocks)."""
        system = self.body.get("system") or ""
        if isinstance(system, str):
            return system
        return "\n".join(b.get("text", "") for b in system if isinstance(b, dict))

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or [])

    def message_texts(self, role: str | None = None) -> list[str]:
        """Every text part of every message (optionally of one role), tool results included."""
        out: list[str] = []
        for m in self.messages:
            if role is not None and m.get("role") != role:
                continue
            out.extend(_texts(m.get("content")))
        return out

    @property
    def all_message_text(self) -> str:
        return "\n".join(self.message_texts())

    @property
    def last_user_text(self) -> str:
        for m in reversed(self.messages):
            if m.get("role") == "user":
                return "\n".join(_texts(m.get("content")))
        return ""

    def has_tool_result(self) -> bool:
        if not self.messages:
            return False
        content = self.messages[-1].get("content")
        return isinstance(content, list) and any(
            isinstance(p, dict) and p.get("type") == "tool_result" for p in content
        )


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    out: list[str] = []
    for part in content or []:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text":
            out.append(part.get("text", ""))
        elif part.get("type") == "tool_result":
            out.extend(_texts(part.get("content")))
    return out


Responder = Callable[[RecordedRequest], Reply]


# ----- the server -------------------------------------------------------------------------


class FakeAnthropic:
    """``with FakeAnthropic() as srv: srv.push(Reply.text("hi")); … srv.requests``.

    Replies are taken from the queue (``push``) in order; when it is empty the
    ``responder`` (if set) or ``default`` reply answers.  Only ``/v1/messages`` posts with
    ``stream`` consume the queue, so probes never eat a scripted reply.
    """

    def __init__(self, default: Reply | None = None) -> None:
        self.default = default or Reply.text("Hello from the fake Anthropic server.")
        self.responder: Responder | None = None
        self.requests: list[RecordedRequest] = []
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # scripting
    def push(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    def clear(self) -> None:
        with self._lock:
            self._queue.clear()
            self.requests.clear()

    @property
    def message_requests(self) -> list[RecordedRequest]:
        """The Messages API posts (what a turn sent), without probes and token counts."""
        with self._lock:
            return [
                r
                for r in self.requests
                if r.method == "POST" and r.path.split("?")[0] == "/v1/messages"
            ]

    def _next_reply(self, req: RecordedRequest) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.responder is not None:
            return self.responder(req)
        return self.default

    def _record(self, req: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(req)

    # lifecycle
    @property
    def url(self) -> str:
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeAnthropic:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, daemon=True, name="fake-anthropic"
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeAnthropic:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _make_handler(owner: FakeAnthropic) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
            pass

        def _headers(self) -> dict[str, str]:
            # The dummy key is never secret, but keep the habit: no credentials in records.
            return {
                k.lower(): ("<redacted>" if k.lower() in ("x-api-key", "authorization") else v)
                for k, v in self.headers.items()
            }

        def _json(self, code: int, obj: dict[str, Any]) -> None:
            data = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_HEAD(self) -> None:  # the CLI's reachability probe
            owner._record(RecordedRequest("HEAD", self.path, self._headers(), {}))
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_GET(self) -> None:
            owner._record(RecordedRequest("GET", self.path, self._headers(), {}))
            self._json(
                404, {"type": "error", "error": {"type": "not_found_error", "message": "not here"}}
            )

        def do_POST(self) -> None:
            n = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(n) if n else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            req = RecordedRequest("POST", self.path, self._headers(), body)
            owner._record(req)
            path = self.path.split("?")[0]
            if path == "/v1/messages/count_tokens":
                return self._json(200, {"input_tokens": 42})
            if path != "/v1/messages":
                return self._json(
                    404, {"type": "error", "error": {"type": "not_found_error", "message": path}}
                )
            reply = owner._next_reply(req)
            if reply.status != 200:
                etype = _ERROR_TYPES.get(reply.status, "api_error")
                return self._json(
                    reply.status,
                    {"type": "error", "error": {"type": etype, "message": reply.error_message}},
                )
            if not body.get("stream"):
                return self._json(200, _whole_message(reply, body.get("model", "claude-fake")))
            self._stream(reply, body.get("model", "claude-fake"))

        def _stream(self, reply: Reply, model: str) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            self.close_connection = True
            try:
                for name, data in _sse_events(reply, model):
                    self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                    self.wfile.flush()
                    if reply.delay_s:
                        time.sleep(reply.delay_s)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client went away (cancellation tests)

    return Handler


def _usage(reply: Reply) -> dict[str, int]:
    return {
        "input_tokens": reply.input_tokens,
        "output_tokens": reply.output_tokens,
        "cache_creation_input_tokens": reply.cache_creation,
        "cache_read_input_tokens": reply.cache_read,
    }


def _whole_message(reply: Reply, model: str) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for b in reply.blocks:
        if isinstance(b, TextBlock):
            content.append({"type": "text", "text": b.text})
        elif isinstance(b, ThinkingBlock):
            content.append({"type": "thinking", "thinking": b.thinking, "signature": "sig"})
        else:
            content.append({"type": "tool_use", "id": b.id, "name": b.name, "input": b.input})
    return {
        "id": "msg_" + uuid.uuid4().hex[:24],
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": reply.stop_reason,
        "stop_sequence": None,
        "usage": _usage(reply),
    }


def _pieces(text: str, size: int) -> list[str]:
    if not text:
        return [""]
    if size <= 0:
        size = max(1, -(-len(text) // 3))
    return [text[i : i + size] for i in range(0, len(text), size)]


def _sse_events(reply: Reply, model: str) -> list[tuple[str, dict[str, Any]]]:
    mid = "msg_" + uuid.uuid4().hex[:24]
    start_usage = dict(_usage(reply), output_tokens=1)
    out: list[tuple[str, dict[str, Any]]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": mid,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": start_usage,
                },
            },
        )
    ]
    for i, b in enumerate(reply.blocks):
        if isinstance(b, TextBlock):
            out.append(
                (
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {"type": "text", "text": ""},
                    },
                )
            )
            for piece in _pieces(b.text, b.chunk_size):
                out.append(
                    (
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": i,
                            "delta": {"type": "text_delta", "text": piece},
                        },
                    )
                )
        elif isinstance(b, ThinkingBlock):
            out.append(
                (
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {"type": "thinking", "thinking": ""},
                    },
                )
            )
            for piece in _pieces(b.thinking, 0):
                out.append(
                    (
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": i,
                            "delta": {"type": "thinking_delta", "thinking": piece},
                        },
                    )
                )
            out.append(
                (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": i,
                        "delta": {"type": "signature_delta", "signature": "c2lnbmF0dXJl"},
                    },
                )
            )
        else:
            out.append(
                (
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {
                            "type": "tool_use",
                            "id": b.id,
                            "name": b.name,
                            "input": {},
                        },
                    },
                )
            )
            out.append(
                (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": i,
                        "delta": {"type": "input_json_delta", "partial_json": json.dumps(b.input)},
                    },
                )
            )
        out.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    out.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": reply.output_tokens},
            },
        )
    )
    out.append(("message_stop", {"type": "message_stop"}))
    return out


# ----- helpers for tests that run the real CLI --------------------------------------------


def claude_env(tmp_path: Path, base_url: str) -> dict[str, str]:
    """Environment that isolates the CLI (own config dir, no telemetry, no retries).

    ``CLAUDE_CODE_MAX_RETRIES=0`` matters: without it a 401 is retried 10 times with
    backoff (real-test-peers §2).
    """
    home = Path(tmp_path) / "claude-home"
    home.mkdir(parents=True, exist_ok=True)
    return {
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "dummy",
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "HOME": str(home),
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "CLAUDE_CODE_MAX_RETRIES": "0",
    }


_REPO_ROOT = Path(__file__).resolve().parents[2]
_NPM_BIN = Path(".npm-claude") / "node_modules" / ".bin" / "claude"


def find_claude_bin() -> str | None:
    """The real CLI for tests: $MILK_TEST_CLAUDE_BIN, the repo's npm install, else PATH."""
    explicit = os.environ.get("MILK_TEST_CLAUDE_BIN", "").strip()
    if explicit:
        return explicit if Path(explicit).exists() or shutil.which(explicit) else None
    local = _REPO_ROOT / _NPM_BIN
    if local.exists():
        return str(local)
    return shutil.which("claude")
