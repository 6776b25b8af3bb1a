"""A local Bedrock Runtime fake that real boto3 talks to (ConverseStream + Converse).

moto does not implement Converse and botocore's Stubber cannot feed an event stream,
so the only way to exercise botocore's real SigV4
signing and event-stream parser is a server on 127.0.0.1 that frames its answers the
way AWS does: ``application/vnd.amazon.eventstream`` messages, each a prelude (total and
header lengths + CRC32), string headers, a JSON payload and a trailing CRC32.

Scripting: queue ``Reply`` objects (``fake.script(...)``); each request pops one, an empty
queue answers with ``default_reply``.  Every request is recorded (path, model id, headers,
JSON body) in ``fake.requests`` so tests assert on what boto3 actually sent.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

from milk_tui.testing.fake_bedrock_reply import (
    STRING_HEADER,
    Reply,
    encode_event,
    encode_exception,
    encode_message,
)
from milk_tui.testing.reply_queue import ReplyQueue

__all__ = [
    "STRING_HEADER",
    "TEST_KEY_ID",
    "TEST_MODEL_ID",
    "TEST_SECRET",
    "FakeBedrock",
    "RecordedRequest",
    "Reply",
    "agent_config",
    "encode_event",
    "encode_exception",
    "encode_message",
]

_CREDENTIAL = re.compile(r"Credential=([^/,\s]+)/")


@dataclass
class RecordedRequest:
    path: str
    model_id: str
    operation: str  # converse-stream | converse
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def access_key_id(self) -> str:
        m = _CREDENTIAL.search(self.headers.get("authorization", ""))
        return m.group(1) if m else ""


class FakeBedrock:
    """Threaded HTTP server on 127.0.0.1; use as a context manager or start()/stop()."""

    def __init__(self, port: int = 0) -> None:
        self._port = port
        self._replies: ReplyQueue[None, Reply] = ReplyQueue()
        self._lock = threading.Lock()
        self._released = threading.Event()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.requests: list[RecordedRequest] = []
        self.default_reply: Reply = Reply().text("ok from fake bedrock")
        self.accepted_key_ids: set[str] | None = None
        """When set, a request signed with any other access key id gets a 403 ExpiredToken."""

    # ----- lifecycle --------------------------------------------------------------

    def start(self) -> FakeBedrock:
        self._stopping.clear()
        self._server = ThreadingHTTPServer(("127.0.0.1", self._port), _make_handler(self))
        self._server.daemon_threads = True
        self._port = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True, name="fake-bedrock"
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Shut down but keep the port number so ``start()`` brings it back at the same URL."""
        self._stopping.set()
        self._released.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self._released.clear()

    def __enter__(self) -> FakeBedrock:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        return self._port

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._port}"

    # ----- scripting --------------------------------------------------------------

    def script(self, *replies: Reply) -> None:
        self._replies.push(*replies)

    def release(self) -> None:
        """Let every ``hold()`` step continue (and end its stream)."""
        self._released.set()

    def _next_reply(self) -> Reply:
        return self._replies.next(None, None, self.default_reply)

    def _record(self, req: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(req)

    @property
    def stream_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.operation == "converse-stream"]


TEST_KEY_ID = "AKIAFAKEKEYID0001"
TEST_SECRET = "fake-secret-value-do-not-leak"
TEST_MODEL_ID = "anthropic.claude-3-5-sonnet-20240620-v1:0"
"""A real-looking ARN-ish id: its ':' must travel percent-encoded in one path segment."""


def agent_config(fake: FakeBedrock, **overrides: Any) -> Any:
    """An ``AgentConfig`` pointing a Bedrock agent at this fake with static test keys."""
    from milk_tui.config.settings import AgentConfig

    base: dict[str, Any] = dict(
        name="bedrock-claude",
        provider="bedrock",
        model=TEST_MODEL_ID,
        endpoint_url=fake.url,
        aws_region="us-east-1",
        aws_key_id=TEST_KEY_ID,
        aws_secret=TEST_SECRET,
        timeout_secs=10,
    )
    base.update(overrides)
    return AgentConfig(**base)


_PATH = re.compile(r"^/model/(?P<model>[^/]+)/(?P<op>converse-stream|converse)$")


def _make_handler(fake: FakeBedrock) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
            pass

        def do_POST(self) -> None:  # noqa: N802 - stdlib hook name
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            m = _PATH.match(self.path.split("?", 1)[0])
            if not m:
                self._json_error(404, "UnknownOperationException", f"no route {self.path}")
                return
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"_raw": raw.decode(errors="replace")}
            req = RecordedRequest(
                path=self.path,
                model_id=unquote(m.group("model")),
                operation=m.group("op"),
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
            )
            fake._record(req)
            if fake.accepted_key_ids is not None and req.access_key_id not in fake.accepted_key_ids:
                self._json_error(
                    403,
                    "ExpiredTokenException",
                    "The security token included in the request is expired",
                )
                return
            reply = fake._next_reply()
            if reply.status != 200:
                self._json_error(reply.status, reply.error_code, reply.error_message)
                return
            if req.operation == "converse":
                self._send_json(200, reply.converse_body())
            else:
                self._stream(reply)

        def _send_json(self, status: int, obj: dict[str, Any], error_type: str = "") -> None:
            data = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("x-amzn-requestid", "fake-request-id")
            if error_type:
                self.send_header("x-amzn-errortype", f"{error_type}:http://internal.amazon.com/")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _json_error(self, status: int, code: str, message: str) -> None:
            self._send_json(status, {"message": message}, error_type=code)

        def _chunk(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        def _stream(self, reply: Reply) -> None:
            self.send_response(200)
            self.send_header("content-type", "application/vnd.amazon.eventstream")
            self.send_header("x-amzn-requestid", "fake-request-id")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            try:
                for step in reply.stream_steps():
                    if step.kind == "pause":
                        time.sleep(step.seconds)
                    elif step.kind == "hold":
                        fake._released.wait()
                        if fake._stopping.is_set():
                            return
                    elif step.kind == "exception":
                        self._chunk(encode_exception(step.name, step.payload["message"]))
                        break
                    else:
                        self._chunk(encode_event(step.name, step.payload))
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client went away (cancelled turn) — nothing to finish

    return Handler
