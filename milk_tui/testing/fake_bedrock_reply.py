"""What the fake Bedrock Runtime answers: AWS event-stream framing and scripted replies.

Each ``application/vnd.amazon.eventstream`` message is a prelude (total and header lengths
+ CRC32), string headers, a JSON payload and a trailing CRC32.
A ``Reply`` is a list of steps (events, exceptions, pauses) built fluently:
``Reply().text("a", "b").usage(10, 5)``.
"""

from __future__ import annotations

import json
import struct
import zlib
from dataclasses import dataclass, field
from typing import Any

STRING_HEADER = 7
"""AWS event-stream header value type 7 = UTF-8 string with a 2-byte length."""


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


def encode_event(event_type: str, payload: Any) -> bytes:
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
    payload: Any = field(default_factory=dict)
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

    def raw_event(self, event_type: str, payload: Any) -> Reply:
        """Any event with any payload, sent as is (malformed-shape tests)."""
        self.steps.append(_Step("event", event_type, payload))
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
