"""A local OTLP/HTTP trace receiver on 127.0.0.1 for tests: what a collector would get.

It accepts ``POST /v1/traces`` with a protobuf ``ExportTraceServiceRequest``
(https://opentelemetry.io/docs/specs/otlp/#otlphttp), decodes it with the official
``opentelemetry.proto`` classes and keeps each span as a ``ReceivedSpan``.  ``status``
makes it answer every export with another HTTP status (a failing collector).

Usage::

    with OtlpReceiver() as rx:
        ...  # config: otel.endpoint = rx.url
        spans = rx.wait_for(2)
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class ReceivedSpan:
    name: str
    trace_id: str
    span_id: str
    parent_span_id: str
    """"" for a root span."""
    attributes: dict[str, Any]
    status_code: int
    """0 unset, 1 ok, 2 error (``opentelemetry.proto.trace.v1.Status``)."""
    status_message: str
    start_ns: int
    end_ns: int
    resource: dict[str, Any] = field(default_factory=dict)


def _value(v: Any) -> Any:
    kind = v.WhichOneof("value")
    return getattr(v, kind) if kind else None


def decode(body: bytes) -> list[ReceivedSpan]:
    """The spans of one ``ExportTraceServiceRequest``."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    req = ExportTraceServiceRequest()
    req.ParseFromString(body)
    out = []
    for rs in req.resource_spans:
        resource = {a.key: _value(a.value) for a in rs.resource.attributes}
        for ss in rs.scope_spans:
            for s in ss.spans:
                out.append(
                    ReceivedSpan(
                        name=s.name,
                        trace_id=s.trace_id.hex(),
                        span_id=s.span_id.hex(),
                        parent_span_id=s.parent_span_id.hex(),
                        attributes={a.key: _value(a.value) for a in s.attributes},
                        status_code=int(s.status.code),
                        status_message=s.status.message,
                        start_ns=s.start_time_unix_nano,
                        end_ns=s.end_time_unix_nano,
                        resource=resource,
                    )
                )
    return out


class OtlpReceiver:
    """Threaded HTTP server keeping every span it was sent (and every request's headers)."""

    def __init__(self) -> None:
        self.spans: list[ReceivedSpan] = []
        self.headers: list[dict[str, str]] = []
        self.status = 200
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 — the http.server API
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path != "/v1/traces":
                    self.send_response(404)
                elif receiver.status != 200:
                    self.send_response(receiver.status)
                else:
                    spans = decode(body)
                    with receiver._lock:
                        receiver.headers.append({k.lower(): v for k, v in self.headers.items()})
                        receiver.spans.extend(spans)
                    self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> OtlpReceiver:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def received(self) -> list[ReceivedSpan]:
        with self._lock:
            return list(self.spans)

    def wait_for(self, n: int, timeout: float = 10.0) -> list[ReceivedSpan]:
        """At least ``n`` spans, waiting up to ``timeout`` seconds for them."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = self.received()
            if len(got) >= n:
                return got
            time.sleep(0.02)
        return self.received()
