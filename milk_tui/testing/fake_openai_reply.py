"""What the fake OpenAI-compatible server answers: scripted replies and their SSE encoding.

A ``FakeReply`` renders itself as the chunk stream of ``/v1/chat/completions`` with
``stream: true`` (https://platform.openai.com/docs/api-reference/chat-streaming), including
the faults a test can ask for (cut, malformed chunk, hang, error status).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any, Literal

Hang = Literal["", "before_headers", "after_headers"]


@dataclass
class FakeToolCall:
    name: str
    arguments: str
    """Raw argument text as the model would stream it (may be deliberately invalid JSON)."""
    id: str = ""
    index: int | None = None
    """Wire ``index``; defaults to the call's position.  Reuse 0 to mimic servers that do."""
    fragments: int = 2
    """Split name/arguments over this many deltas to exercise accumulation."""


def usage(prompt: int, completion: int, *, cached: int = 0) -> dict[str, Any]:
    """An OpenAI-style usage object: ``prompt`` INCLUDES ``cached`` tokens."""
    u: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if cached:
        u["prompt_tokens_details"] = {"cached_tokens": cached}
    return u


@dataclass
class FakeReply:
    """One scripted response.  Order on the wire: reasoning, text, tool calls, finish, usage."""

    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    reasoning_key: str = "reasoning_content"
    tool_calls: list[FakeToolCall] = field(default_factory=list)
    usage: dict[str, Any] | None = None
    finish_reason: str | None = None
    """None → "tool_calls" when there are tool calls, else "stop"."""
    status: int = 200
    error_body: str = ""
    """Body for a non-200 status (sent as-is; JSON or plain text)."""
    cut_after: int | None = None
    """Close the connection after this many SSE events: no finish_reason, no [DONE]."""
    malformed_after: int | None = None
    """Send ``data: {not json`` after this many events (then the rest normally)."""
    hang: Hang = ""
    """Never answer: before the status line, or after headers (no body bytes ever)."""
    delay: float = 0.0
    """Seconds between SSE events (paced streaming for UI tests / the demo)."""
    hold: threading.Event | None = None
    """Send ``hold_after`` events, then nothing more until the test sets this event (or the
    client leaves): a turn that is "still running" for exactly as long as the test wants."""
    hold_after: int = 1
    drip: float = 0.0
    """Seconds between single BYTES of the body: a server that keeps the connection busy
    (no read timeout ever trips) but takes for ever to finish."""
    raw_lines: list[str] | None = None
    """Exact SSE lines to send instead of generated ones (newlines added)."""
    model: str = "fake-model"
    logprobs: dict[str, Any] | None = None
    """A non-streamed request (``"stream": false``) gets one JSON completion of ``text``
    with this as its ``choices[0].logprobs`` (``None``: the field is left out)."""
    send_done: bool = True
    _encoded: list[bytes] | None = field(default=None, repr=False)

    @classmethod
    def bulk(cls, n: int, piece: str = "tok ", **kw: Any) -> FakeReply:
        """``n`` one-piece content chunks: the benchmark stream."""
        return cls(text=[piece] * n, **kw)

    # ----- encoding ----------------------------------------------------------------------

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> str:
        return json.dumps(
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": self.model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            },
            separators=(",", ":"),
        )

    def events(self) -> list[bytes]:
        """SSE event blocks (``data: …\\n\\n``), cached so a reused reply costs nothing."""
        if self._encoded is not None:
            return self._encoded
        if self.raw_lines is not None:
            out = [(line + "\n").encode() for line in self.raw_lines]
            self._encoded = out
            return out
        datas: list[str] = [self._chunk({"role": "assistant", "content": None})]
        datas += [self._chunk({self.reasoning_key: r}) for r in self.reasoning]
        datas += [self._chunk({"content": t}) for t in self.text]
        for pos, call in enumerate(self.tool_calls):
            datas += self._tool_call_chunks(pos, call)
        finish = self.finish_reason or ("tool_calls" if self.tool_calls else "stop")
        datas.append(self._chunk({}, finish))
        if self.usage is not None:
            datas.append(
                json.dumps(
                    {
                        "id": "chatcmpl-fake",
                        "object": "chat.completion.chunk",
                        "created": 0,
                        "model": self.model,
                        "choices": [],
                        "usage": self.usage,
                    },
                    separators=(",", ":"),
                )
            )
        out = [f"data: {d}\n\n".encode() for d in datas]
        if self.malformed_after is not None:
            out.insert(self.malformed_after, b'data: {"choices": [{"delta": {"content": "x"\n\n')
        if self.send_done and self.cut_after is None:
            out.append(b"data: [DONE]\n\n")
        if self.cut_after is not None:
            out = out[: self.cut_after]
        self._encoded = out
        return out

    def _tool_call_chunks(self, pos: int, call: FakeToolCall) -> list[str]:
        index = pos if call.index is None else call.index
        call_id = call.id or f"call_{pos}"
        n = max(1, call.fragments)
        name_parts = _split(call.name, n)
        arg_parts = _split(call.arguments, n)
        chunks = []
        for i in range(n):
            fn: dict[str, Any] = {"arguments": arg_parts[i]}
            if name_parts[i]:
                fn["name"] = name_parts[i]
            tc: dict[str, Any] = {"index": index, "function": fn}
            if i == 0:
                tc["id"] = call_id
                tc["type"] = "function"
            chunks.append(self._chunk({"tool_calls": [tc]}))
        return chunks


def _split(s: str, n: int) -> list[str]:
    step = max(1, -(-len(s) // n)) if s else 1
    parts = [s[i * step : (i + 1) * step] for i in range(n)]
    return parts


def whole_completion(reply: FakeReply) -> str:
    """The JSON body of a non-streamed chat completion of ``reply``."""
    choice: dict[str, Any] = {
        "index": 0,
        "message": {"role": "assistant", "content": "".join(reply.text)},
        "finish_reason": reply.finish_reason or "stop",
    }
    if reply.logprobs is not None:
        choice["logprobs"] = reply.logprobs
    body: dict[str, Any] = {"object": "chat.completion", "model": reply.model, "choices": [choice]}
    if reply.usage is not None:
        body["usage"] = reply.usage
    return json.dumps(body)
