"""A local Bedrock Runtime fake that real boto3 talks to (ConverseStream + Converse).

moto does not implement Converse and botocore's Stubber cannot feed an event stream
(reference real-test-peers §4), so the only way to exercise botocore's real SigV4
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
import struct
import threading
import time
import zlib
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

STRING_HEADER = 7
"""AWS event-stream header value type 7 = UTF-8 string with a 2-byte length."""

_CREDENTIAL = re.compile(r"Credential=([^/,\s]+)/")


def _header(name: str, value: str) -> bytes:
    n, v = name.encode(), value.encode()
    return struct.pack("!B", len(n)) + n + struct.pack("!BH", STRING_HEADER, len(v)) + v


def encode_message(headers: dict[str, str], payload: bytes) -> bytes:
    """One event-stream message: prelude + prelude CRC, headers, payload, message CRC."""
    hdr = b"".join(_header(k, v) for k, v in headers.items())
    total = 4 + 4 + 4 + len(hdr) + len(payload) + 4
    prelude = struct.pack("!II", total, len(hdr))
    prelude += struct.pack("!I", zlib.crc32(prelude) & 0xFFFFFFFF)
    msg = prelude + hdr + payload
    return msg + struct.pack("!I", zlib.crc32(msg) & 0xFFFFFFFF)


def encode_event(event_type: str, payload: dict[str, Any]) -> bytes:
    return encode_message(
        {":event-type": event_type, ":content-type": "application/json", ":message-type": "event"},
        json.dumps(payload).encode(),
    )


def encode_exception(exception_type: str, message: str) -> bytes:
    return encode_message(
        {
            ":exception-type": exception_type,
            ":content-type": "application/json",
            ":message-type": "exception",
        },
        json.dumps({"message": message}).encode(),
    )


@dataclass
class _Step:
    kind: str  # event | exception | pause | hold
    name: str = ""
    payload: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0


@dataclass
class Reply:
    """One scripted answer, built fluently: ``Reply().reasoning("hm").text("Hel", "lo")``.

    Content blocks get consecutive ``contentBlockIndex`` values like the real service;
    ``messageStop`` and ``metadata`` are appended when the stream is rendered unless an
    in-stream exception ended it first.
    """

    status: int = 200
    error_code: str = ""
    error_message: str = ""
    stop_reason: str = ""
    usage_fields: dict[str, int] = field(
        default_factory=lambda: {"inputTokens": 3, "outputTokens": 3}
    )
    steps: list[_Step] = field(default_factory=list)
    _index: int = 0
    _texts: list[str] = field(default_factory=list)
    _tool_used: bool = False

    @classmethod
    def http_error(cls, status: int, code: str, message: str) -> Reply:
        return cls(status=status, error_code=code, error_message=message)

    def _block_start(self, start: dict[str, Any] | None) -> int:
        idx = self._index
        self._index += 1
        if start is not None:
            self.steps.append(
                _Step("event", "contentBlockStart", {"contentBlockIndex": idx, "start": start})
            )
        return idx

    def _block_stop(self, idx: int) -> None:
        self.steps.append(_Step("event", "contentBlockStop", {"contentBlockIndex": idx}))

    def text(self, *chunks: str) -> Reply:
        idx = self._block_start(None)
        for c in chunks:
            self._texts.append(c)
            self.steps.append(
                _Step(
                    "event", "contentBlockDelta", {"contentBlockIndex": idx, "delta": {"text": c}}
                )
            )
        self._block_stop(idx)
        return self

    def reasoning(self, *chunks: str, signature: str = "sig-fake") -> Reply:
        idx = self._block_start(None)
        for c in chunks:
            self.steps.append(
                _Step(
                    "event",
                    "contentBlockDelta",
                    {"contentBlockIndex": idx, "delta": {"reasoningContent": {"text": c}}},
                )
            )
        if signature:
            self.steps.append(
                _Step(
                    "event",
                    "contentBlockDelta",
                    {
                        "contentBlockIndex": idx,
                        "delta": {"reasoningContent": {"signature": signature}},
                    },
                )
            )
        self._block_stop(idx)
        return self

    def tool_use(
        self, tool_use_id: str, name: str, arguments: dict[str, Any] | str, *, pieces: int = 2
    ) -> Reply:
        """A toolUse block whose JSON input arrives split over ``pieces`` deltas."""
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
        idx = self._block_start({"toolUse": {"toolUseId": tool_use_id, "name": name}})
        step = max(1, -(-len(raw) // max(pieces, 1)))
        for i in range(0, max(len(raw), 1), step):
            self.steps.append(
                _Step(
                    "event",
                    "contentBlockDelta",
                    {"contentBlockIndex": idx, "delta": {"toolUse": {"input": raw[i : i + step]}}},
                )
            )
        self._block_stop(idx)
        self._tool_used = True
        return self

    def exception(self, exception_type: str, message: str) -> Reply:
        self.steps.append(_Step("exception", exception_type, {"message": message}))
        return self

    def pause(self, seconds: float) -> Reply:
        self.steps.append(_Step("pause", seconds=seconds))
        return self

    def hold(self) -> Reply:
        """Keep the connection open (no more bytes) until the fake is released or stopped."""
        self.steps.append(_Step("hold"))
        return self

    def stop(self, reason: str) -> Reply:
        self.stop_reason = reason
        return self

    def usage(
        self, input_tokens: int, output_tokens: int, *, cache_read: int = 0, cache_write: int = 0
    ) -> Reply:
        u = {
            "inputTokens": input_tokens,
            "outputTokens": output_tokens,
            "totalTokens": input_tokens + output_tokens,
        }
        if cache_read:
            u["cacheReadInputTokens"] = cache_read
        if cache_write:
            u["cacheWriteInputTokens"] = cache_write
        self.usage_fields = u
        return self

    # ----- rendering --------------------------------------------------------------

    def _stop_reason(self) -> str:
        return self.stop_reason or ("tool_use" if self._tool_used else "end_turn")

    def stream_steps(self) -> list[_Step]:
        out = [_Step("event", "messageStart", {"role": "assistant"}), *self.steps]
        if any(s.kind == "exception" for s in self.steps):
            return out
        out.append(_Step("event", "messageStop", {"stopReason": self._stop_reason()}))
        out.append(
            _Step("event", "metadata", {"usage": self.usage_fields, "metrics": {"latencyMs": 1}})
        )
        return out

    def converse_body(self) -> dict[str, Any]:
        return {
            "output": {
                "message": {"role": "assistant", "content": [{"text": "".join(self._texts)}]}
            },
            "stopReason": self._stop_reason(),
            "usage": self.usage_fields,
            "metrics": {"latencyMs": 1},
        }


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
        self._queue: deque[Reply] = deque()
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
        with self._lock:
            self._queue.extend(replies)

    def release(self) -> None:
        """Let every ``hold()`` step continue (and end its stream)."""
        self._released.set()

    def _next_reply(self) -> Reply:
        with self._lock:
            return self._queue.popleft() if self._queue else self.default_reply

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
