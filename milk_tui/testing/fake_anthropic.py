"""A scriptable fake Anthropic Messages API on 127.0.0.1 for driving the real Claude CLI.

Tests point the npm-installed ``claude`` at it (``ANTHROPIC_BASE_URL``) and then assert on
what the CLI actually SENT (system prompt, messages) — the only honest way to check our
``--append-system-prompt-file`` / ``--resume`` wiring.  The CLI probes ``HEAD /`` first
and posts to ``/v1/messages?beta=true`` with ``stream: true``; both are served here.

The server runs in a daemon thread (stdlib ``ThreadingHTTPServer``) so it works the same
from sync and asyncio tests.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from milk_tui.testing.claude_env import claude_env, find_claude_bin
from milk_tui.testing.fake_anthropic_reply import (
    ERROR_TYPES,
    Block,
    Reply,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    sse_events,
    whole_message,
)
from milk_tui.testing.reply_queue import ReplyQueue

__all__ = [
    "Block",
    "FakeAnthropic",
    "RecordedRequest",
    "Reply",
    "TextBlock",
    "ThinkingBlock",
    "ToolUseBlock",
    "claude_env",
    "find_claude_bin",
]


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
        self._replies: ReplyQueue[RecordedRequest, Reply] = ReplyQueue()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # scripting
    def push(self, *replies: Reply) -> None:
        self._replies.push(*replies)

    def clear(self) -> None:
        self._replies.clear()
        with self._lock:
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
        return self._replies.next(req, self.responder, self.default)

    def _record(self, req: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(req)

    # lifecycle
    @property
    def url(self) -> str:
        assert self._server is not None, "server not started"
        return f"http://127.0.0.1:{self._server.server_port}"

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
                etype = ERROR_TYPES.get(reply.status, "api_error")
                return self._json(
                    reply.status,
                    {"type": "error", "error": {"type": etype, "message": reply.error_message}},
                )
            if not body.get("stream"):
                return self._json(200, whole_message(reply, body.get("model", "claude-fake")))
            self._stream(reply, body.get("model", "claude-fake"))

        def _stream(self, reply: Reply, model: str) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            self.close_connection = True
            try:
                for name, data in sse_events(reply, model):
                    self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                    self.wfile.flush()
                    if reply.delay_s:
                        time.sleep(reply.delay_s)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client went away (cancellation tests)

    return Handler
