"""A fake OpenAI Responses API server: ``FakeOpenAIServer`` answering ``POST /v1/responses``
with the typed event stream of https://platform.openai.com/docs/api-reference/responses-streaming.

The server, its recording of requests and its faults (error status, hang, pacing, cut) are
``fake_openai``'s; a ``ResponsesReply`` renders itself as Responses events instead of chat
chunks, the way OpenAI writes them (an ``event:`` line, a numbered ``data:`` line)::

    with FakeResponsesServer() as srv:
        srv.enqueue(ResponsesReply(text=["Hel", "lo"], usage=responses_usage(12, 3, cached=4)))
        ...  # an agent with api_format = "responses" at srv.url
        assert srv.chat_requests[-1].json["input"][-1]["content"] == "hi"
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from milk_tui.testing.fake_openai import FakeOpenAIServer
from milk_tui.testing.fake_openai_reply import FakeReply, FakeToolCall, _split

__all__ = ["FakeResponsesServer", "FakeToolCall", "ResponsesReply", "responses_usage"]


def responses_usage(
    input_tokens: int, output_tokens: int, *, cached: int = 0, reasoning: int = 0
) -> dict[str, Any]:
    """A Responses usage object: ``input_tokens`` INCLUDES ``cached``."""
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": input_tokens + output_tokens,
    }


@dataclass
class ResponsesReply(FakeReply):
    """One scripted response.  Order: reasoning item, message item, function-call items,
    then ``response.completed`` (or the fault asked for)."""

    reasoning_kind: Literal["summary", "text"] = "summary"
    """``response.reasoning_summary_text.delta`` (OpenAI) or ``response.reasoning_text.delta``
    (open-weight models served by vLLM / llama.cpp)."""
    failed: str = ""
    """End with ``response.failed`` carrying this message instead of completing."""
    error_event: str = ""
    """End with an ``error`` event carrying this message."""
    incomplete: str = ""
    """End with ``response.incomplete`` and this reason (e.g. ``max_output_tokens``)."""
    event_lines: bool = True
    """Write an ``event: <type>`` line before each ``data:`` line, as OpenAI does."""

    def events(self) -> list[bytes]:
        if self._encoded is not None:
            return self._encoded
        if self.raw_lines is not None:
            return super().events()
        enc = _Encoder(self.model, self.event_lines)
        enc.emit("response.created", response=enc.response("in_progress", []))
        output: list[dict[str, Any]] = []
        if self.reasoning:
            output.append(self._reasoning_item(enc))
        if self.text:
            output.append(self._message_item(enc))
        for call in self.tool_calls:
            output.append(self._call_item(enc, call))
        if self.failed:
            err = {"code": "server_error", "message": self.failed}
            enc.emit("response.failed", response=dict(enc.response("failed", output), error=err))
        elif self.error_event:
            enc.emit("error", code="server_error", message=self.error_event, param=None)
        else:
            status = "incomplete" if self.incomplete else "completed"
            resp = enc.response(status, output)
            if self.usage is not None:
                resp["usage"] = self.usage
            if self.incomplete:
                resp["incomplete_details"] = {"reason": self.incomplete}
            enc.emit(f"response.{status}", response=resp)
        out = enc.out
        if self.malformed_after is not None:
            out.insert(self.malformed_after, b'data: {"type": "response.output_text.delta"\n\n')
        if self.cut_after is not None:
            out = out[: self.cut_after]
        self._encoded = out
        return out

    def _reasoning_item(self, enc: _Encoder) -> dict[str, Any]:
        index, item_id = enc.next_index(), "rs_fake"
        enc.emit(
            "response.output_item.added",
            output_index=index,
            item={"id": item_id, "type": "reasoning", "summary": []},
        )
        kind = "summary_text" if self.reasoning_kind == "summary" else "text"
        slot = "summary_index" if kind == "summary_text" else "content_index"
        for r in self.reasoning:
            enc.emit(
                f"response.reasoning_{kind}.delta",
                item_id=item_id,
                output_index=index,
                **{slot: 0},
                delta=r,
            )
        full = "".join(self.reasoning)
        item = {"id": item_id, "type": "reasoning", "summary": [{"type": kind, "text": full}]}
        enc.emit("response.output_item.done", output_index=index, item=item)
        return item

    def _message_item(self, enc: _Encoder) -> dict[str, Any]:
        index, item_id = enc.next_index(), "msg_fake"
        item: dict[str, Any] = {
            "id": item_id,
            "type": "message",
            "status": "in_progress",
            "role": "assistant",
            "content": [],
        }
        enc.emit("response.output_item.added", output_index=index, item=item)
        at = {"item_id": item_id, "output_index": index, "content_index": 0}
        enc.emit("response.content_part.added", **at, part=_text_part(""))
        for t in self.text:
            enc.emit("response.output_text.delta", **at, delta=t, logprobs=[])
        full = "".join(self.text)
        enc.emit("response.output_text.done", **at, text=full, logprobs=[])
        enc.emit("response.content_part.done", **at, part=_text_part(full))
        item = dict(item, status="completed", content=[_text_part(full)])
        enc.emit("response.output_item.done", output_index=index, item=item)
        return item

    def _call_item(self, enc: _Encoder, call: FakeToolCall) -> dict[str, Any]:
        index = enc.next_index()
        item_id = f"fc_{index}"
        item = {
            "id": item_id,
            "type": "function_call",
            "status": "in_progress",
            "call_id": call.id or f"call_{index}",
            "name": call.name,
            "arguments": "",
        }
        enc.emit("response.output_item.added", output_index=index, item=item)
        for part in _split(call.arguments, max(1, call.fragments)):
            if part:
                enc.emit(
                    "response.function_call_arguments.delta",
                    item_id=item_id,
                    output_index=index,
                    delta=part,
                )
        enc.emit(
            "response.function_call_arguments.done",
            item_id=item_id,
            output_index=index,
            arguments=call.arguments,
        )
        item = dict(item, status="completed", arguments=call.arguments)
        enc.emit("response.output_item.done", output_index=index, item=item)
        return item


class _Encoder:
    """Numbers and frames the events of one response."""

    def __init__(self, model: str, event_lines: bool) -> None:
        self.model = model
        self.event_lines = event_lines
        self.out: list[bytes] = []
        self._index = -1

    def next_index(self) -> int:
        self._index += 1
        return self._index

    def response(self, status: str, output: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "id": "resp_fake",
            "object": "response",
            "status": status,
            "model": self.model,
            "output": output,
        }

    def emit(self, kind: str, **fields: Any) -> None:
        body = {"type": kind, "sequence_number": len(self.out), **fields}
        data = json.dumps(body, separators=(",", ":"))
        head = f"event: {kind}\n" if self.event_lines else ""
        self.out.append(f"{head}data: {data}\n\n".encode())


def _text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": []}


class FakeResponsesServer(FakeOpenAIServer):
    """``FakeOpenAIServer`` at ``/v1/responses``, answering ``ResponsesReply``s."""

    def __init__(self, *, port: int = 0, path: str = "/v1/responses") -> None:
        super().__init__(port=port, chat_path=path)
        self.default_reply = ResponsesReply(
            text=["Hello", " from", " the", " fake."], usage=responses_usage(12, 4)
        )
