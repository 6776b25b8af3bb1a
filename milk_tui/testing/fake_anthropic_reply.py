"""What the fake Anthropic Messages server answers: reply blocks, and their wire encodings.

A ``Reply`` is a list of content blocks plus usage figures; ``whole_message`` renders it as
one JSON message and ``sse_events`` as the ``event:``/``data:`` stream of the Messages API
(https://docs.anthropic.com/en/api/messages-streaming).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

# Anthropic error "type" per HTTP status (docs.anthropic.com errors page).
ERROR_TYPES = {
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
    stop: str = ""
    """This ``stop_reason`` instead of the natural one (``max_tokens``: cut at the limit)."""

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
        if self.stop:
            return self.stop
        return "tool_use" if any(isinstance(b, ToolUseBlock) for b in self.blocks) else "end_turn"


# ----- what the CLI sent ------------------------------------------------------------------


def usage(reply: Reply) -> dict[str, int]:
    return {
        "input_tokens": reply.input_tokens,
        "output_tokens": reply.output_tokens,
        "cache_creation_input_tokens": reply.cache_creation,
        "cache_read_input_tokens": reply.cache_read,
    }


def whole_message(reply: Reply, model: str) -> dict[str, Any]:
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
        "usage": usage(reply),
    }


def pieces(text: str, size: int) -> list[str]:
    if not text:
        return [""]
    if size <= 0:
        size = max(1, -(-len(text) // 3))
    return [text[i : i + size] for i in range(0, len(text), size)]


def _event(name: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    """An SSE event: its ``event:`` name and its ``data:`` object, whose ``type`` repeats it."""
    return name, {"type": name, **fields}


def _block(b: Block) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A content block's ``content_block_start`` body and the deltas that fill it."""
    if isinstance(b, TextBlock):
        texts = pieces(b.text, b.chunk_size)
        return {"type": "text", "text": ""}, [{"type": "text_delta", "text": t} for t in texts]
    if isinstance(b, ThinkingBlock):
        deltas = [{"type": "thinking_delta", "thinking": t} for t in pieces(b.thinking, 0)]
        deltas.append({"type": "signature_delta", "signature": "c2lnbmF0dXJl"})
        return {"type": "thinking", "thinking": ""}, deltas
    start = {"type": "tool_use", "id": b.id, "name": b.name, "input": {}}
    return start, [{"type": "input_json_delta", "partial_json": json.dumps(b.input)}]


def sse_events(reply: Reply, model: str) -> list[tuple[str, dict[str, Any]]]:
    message: dict[str, Any] = {
        "id": "msg_" + uuid.uuid4().hex[:24],
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": dict(usage(reply), output_tokens=1),
    }
    out = [_event("message_start", message=message)]
    for i, b in enumerate(reply.blocks):
        start, deltas = _block(b)
        out.append(_event("content_block_start", index=i, content_block=start))
        out.extend(_event("content_block_delta", index=i, delta=d) for d in deltas)
        out.append(_event("content_block_stop", index=i))
    out.append(
        _event(
            "message_delta",
            delta={"stop_reason": reply.stop_reason, "stop_sequence": None},
            usage={"output_tokens": reply.output_tokens},
        )
    )
    out.append(_event("message_stop"))
    return out
