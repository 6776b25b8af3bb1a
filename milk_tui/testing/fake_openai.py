"""A scriptable fake OpenAI-compatible chat-completions server on 127.0.0.1.

Why our own server instead of respx: fault tests must exercise the real socket path of the
agent (connection refused, a peer that closes mid-body, a server that never answers), and
benchmarks, the demo and other helpers need a real URL.  It runs its own asyncio loop in a
daemon thread so that sync code, pytest-asyncio tests (function-scoped loops) and Textual
apps can all use it.  Every request is recorded so tests assert on what the server RECEIVED.

Usage::

    with FakeOpenAIServer() as srv:                     # or ``async with``
        srv.enqueue(FakeReply(text=["Hel", "lo"], usage=usage(12, 3, cached=4)))
        ...  # point an agent at srv.url
        assert srv.chat_requests[-1].json["stream"] is True

Replies are consumed per chat request in FIFO order; when the queue is empty
``default_reply`` is served (or ``responder(request)`` when set).  ``python -m
milk_tui.testing.fake_openai --port 8089`` serves the default reply until interrupted.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from milk_tui.testing.fake_openai_reply import (
    FakeReply,
    FakeToolCall,
    Hang,
    usage,
    whole_completion,
)
from milk_tui.testing.reply_queue import ReplyQueue

__all__ = ["FakeOpenAIServer", "FakeReply", "FakeToolCall", "Hang", "RecordedRequest", "usage"]


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    """Header names lower-cased."""
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


MODELS_BODY = json.dumps({"object": "list", "data": [{"id": "fake-model", "object": "model"}]})


class FakeOpenAIServer:
    """Threaded asyncio HTTP/1.1 server speaking just enough of the OpenAI API."""

    def __init__(
        self, *, port: int = 0, chat_path: str = "/v1/chat/completions", tls: Any = None
    ) -> None:
        self.port = port
        self.tls = tls
        """An ``ssl.SSLContext`` to serve HTTPS with (a self-signed certificate in tests)."""
        self.chat_path = chat_path
        self.requests: list[RecordedRequest] = []
        self.default_reply = FakeReply(
            text=["Hello", " from", " the", " fake."], usage=usage(12, 4)
        )
        self.responder: Callable[[RecordedRequest], FakeReply] | None = None
        self._replies: ReplyQueue[RecordedRequest, FakeReply] = ReplyQueue()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._lock = threading.Lock()
        self._handlers: set[asyncio.Task[None]] = set()
        self.connections = 0
        self.disconnects = 0
        """Streams the CLIENT abandoned before the reply was fully written (cancellation)."""
        self.events_sent: list[int] = []
        """SSE events written per streamed reply (a paced reply the client closed early
        shows fewer than it scripted)."""

    # ----- scripting -----------------------------------------------------------------------

    def enqueue(self, *replies: FakeReply) -> None:
        self._replies.push(*replies)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.method == "POST"]

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    def _next_reply(self, req: RecordedRequest) -> FakeReply:
        return self._replies.next(req, self.responder, self.default_reply)

    # ----- lifecycle -----------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        self._thread = threading.Thread(target=self._run, name="fake-openai", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("fake OpenAI server did not start")
        return self

    def stop(self) -> None:
        if self._loop is None or self._thread is None:
            return
        loop, stop = self._loop, self._stop
        if stop is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stop.set)
        self._thread.join(10)
        self._loop = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> FakeOpenAIServer:
        return self.start()

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.stop)

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._main())
        finally:
            loop.close()

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        handlers: set[asyncio.Task[None]] = set()
        self._handlers = handlers
        self._server = await asyncio.start_server(
            self._handle, "127.0.0.1", self.port, ssl=self.tls
        )
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        await self._stop.wait()
        self._server.close()
        for t in list(handlers):
            t.cancel()
        await asyncio.gather(*handlers, return_exceptions=True)

    # ----- HTTP ------------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        self.connections += 1
        try:
            while True:
                req = await _read_request(reader)
                if req is None:
                    break
                self.requests.append(req)
                keep = await self._respond(req, writer)
                if not keep:
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            pass
        finally:
            self._handlers.discard(task)
            with contextlib.suppress(Exception):
                writer.close()

    async def _respond(self, req: RecordedRequest, writer: asyncio.StreamWriter) -> bool:
        path = req.path.split("?", 1)[0]
        if req.method == "GET" and path in ("/v1/models", "/models"):
            _write_simple(writer, 200, MODELS_BODY, "application/json")
            await writer.drain()
            return True
        if req.method == "GET" and path == "/health":
            _write_simple(writer, 200, '{"status":"ok"}', "application/json")
            await writer.drain()
            return True
        if req.method != "POST" or path != self.chat_path:
            _write_simple(writer, 404, '{"error":{"message":"not found"}}', "application/json")
            await writer.drain()
            return True
        reply = self._next_reply(req)
        if reply.hang == "before_headers":
            await asyncio.Event().wait()  # until the server stops (cancelled)
        if reply.status != 200:
            _write_simple(writer, reply.status, reply.error_body, "application/json")
            await writer.drain()
            return True
        body = req.json if req.body else None
        if isinstance(body, dict) and body.get("stream") is False:
            _write_simple(writer, 200, whole_completion(reply), "application/json")
            await writer.drain()
            return True
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            b"Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        await writer.drain()
        if reply.hang == "after_headers":
            await asyncio.Event().wait()
        events = reply.events()
        held = 0
        if reply.hold is not None:
            held = min(reply.hold_after, len(events))
            await self._send_held(writer, events[:held], reply.hold)
            events = events[held:]
        if reply.drip > 0:
            await _drip(writer, b"".join(events), reply.drip)
        elif reply.delay <= 0:
            writer.write(_chunked_all(events))
            await writer.drain()
            self.events_sent.append(held + len(events))
        else:
            sent = 0
            try:
                for ev in events:
                    if writer.is_closing() or reader_eof(writer):
                        raise ConnectionResetError
                    writer.write(b"%x\r\n%s\r\n" % (len(ev), ev))
                    await writer.drain()
                    sent += 1
                    await asyncio.sleep(reply.delay)
            except ConnectionError:
                self.disconnects += 1
                raise
            finally:
                self.events_sent.append(held + sent)
        if reply.cut_after is not None:
            # Abrupt close: no terminating zero-length chunk, so the client sees a
            # truncated body exactly like a crashed backend.
            with contextlib.suppress(Exception):
                writer.transport.abort()
            return False
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True

    async def _send_held(
        self, writer: asyncio.StreamWriter, first: list[bytes], hold: threading.Event
    ) -> None:
        """The ``first`` events, then wait for the test's ``hold`` event or for the client to
        leave (counted as a disconnect, like a paced stream the client closed)."""
        writer.write(_chunked_all(first))
        await writer.drain()
        while not hold.is_set():
            if writer.is_closing() or reader_eof(writer):
                self.disconnects += 1
                self.events_sent.append(len(first))
                raise ConnectionResetError
            await asyncio.sleep(0.01)


async def _drip(writer: asyncio.StreamWriter, body: bytes, pause: float) -> None:
    """One byte per HTTP chunk, ``pause`` seconds apart, until done or the client leaves."""
    for i in range(len(body)):
        if writer.is_closing() or reader_eof(writer):
            raise ConnectionResetError
        writer.write(b"1\r\n%s\r\n" % body[i : i + 1])
        await writer.drain()
        await asyncio.sleep(pause)


def reader_eof(writer: asyncio.StreamWriter) -> bool:
    """True once the peer closed its side (the transport saw EOF)."""
    proto = writer.transport.get_protocol()
    reader = getattr(proto, "_stream_reader", None)
    return bool(reader is not None and reader.at_eof())


def _chunked_all(events: list[bytes]) -> bytes:
    """One HTTP chunk per SSE event, like llama.cpp, written in a single syscall."""
    return b"".join(b"%x\r\n%s\r\n" % (len(ev), ev) for ev in events)


def _write_simple(writer: asyncio.StreamWriter, status: int, body: str, ctype: str) -> None:
    data = body.encode()
    writer.write(
        f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}\r\nContent-Type: {ctype}\r\n"
        f"Content-Length: {len(data)}\r\n\r\n".encode()
        + data
    )


_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


async def _read_request(reader: asyncio.StreamReader) -> RecordedRequest | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    body = b""
    if "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    elif headers.get("transfer-encoding", "").lower() == "chunked":
        parts = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip().split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                break
            parts.append(await reader.readexactly(size))
            await reader.readexactly(2)
        body = b"".join(parts)
    return RecordedRequest(method, path, headers, body)


def main() -> None:  # pragma: no cover - manual use
    import argparse
    import time

    ap = argparse.ArgumentParser(description="serve a fake OpenAI-compatible endpoint")
    ap.add_argument("--port", type=int, default=8089)
    ap.add_argument("--delay", type=float, default=0.02, help="seconds between chunks")
    args = ap.parse_args()
    srv = FakeOpenAIServer(port=args.port)
    srv.default_reply.delay = args.delay
    srv.start()
    print(f"fake OpenAI server on {srv.url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        srv.stop()


if __name__ == "__main__":  # pragma: no cover
    main()
