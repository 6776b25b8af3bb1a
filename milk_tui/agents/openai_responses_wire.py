"""OpenAI Responses API shapes, in one place: what goes out and the event types read back.

The request (https://platform.openai.com/docs/api-reference/responses/create) carries the
conversation as ``input`` items; the streamed answer is a series of typed events
(https://platform.openai.com/docs/api-reference/responses-streaming), parsed by
``openai_responses_stream``.  Pure functions, no I/O.  Everything a tool round needs is sent
again each round (no ``previous_response_id``): the same history the chat path sends, so a
server that keeps nothing (llama.cpp, vLLM) gets a whole conversation and a hand-off or a
resumed session needs no server state (docs/adr/0024-responses-api-through-the-tool-loop.md).
"""

from __future__ import annotations

import json
from typing import Any

from milk_tui.agents.base import AgentRequest, ChatMessage, ToolSpec
from milk_tui.agents.openai_wire import envelope, text_call_results, wire_call
from milk_tui.agents.round_backend import RoundResult, ToolRun
from milk_tui.agents.wire_shape import get, wrong

Item = dict[str, Any]
"""One ``input`` item (a message, a function call or a function call's output)."""

DEFAULT_PATH = "/v1/responses"

PASSTHROUGH_KEYS = {
    "temperature": "temperature",
    "top_p": "top_p",
    "max_tokens": "max_output_tokens",
}
"""Agent config key → request field.  The chat path's ``seed`` and ``stop`` have no
Responses counterpart (the API refuses unknown fields), so they are not sent here."""

# ----- request items ---------------------------------------------------------------------


def message(role: str, content: str) -> Item:
    """An input message: https://platform.openai.com/docs/api-reference/responses/create#responses-create-input
    (roles ``system``, ``developer``, ``user``, ``assistant``; string content).  ``type``
    is optional for OpenAI, but llama.cpp refuses an assistant message without it."""
    return {"type": "message", "role": role, "content": content}


def function_call(call_id: str, name: str, arguments: str) -> Item:
    """A call the model made, sent back so it sees its own round:
    https://platform.openai.com/docs/guides/function-calling?api-mode=responses"""
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments}


def function_call_output(call_id: str, output: str) -> Item:
    """A tool's result for ``call_id`` (same guide as ``function_call``)."""
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def function_tool(spec: ToolSpec) -> Item:
    """A function tool, flat (no ``function`` wrapper as in chat completions):
    https://platform.openai.com/docs/api-reference/responses/create#responses-create-tools"""
    return {
        "type": "function",
        "name": spec.name,
        "description": spec.description,
        "parameters": spec.parameters,
    }


def initial_items(request: AgentRequest) -> list[Item]:
    """System prompt, the history, the user's prompt: what the chat path sends, as items.
    The system prompt is a ``system`` message rather than ``instructions`` so servers that
    implement only ``input`` (llama.cpp) read it too."""
    items: list[Item] = []
    if request.system_prompt:
        items.append(message("system", request.system_prompt))
    for m in request.messages:
        items += history_items(m)
    items.append(message("user", request.prompt))
    return items


def history_items(m: ChatMessage) -> list[Item]:
    """One stored chat message as items: an assistant's tool calls become ``function_call``
    items after its text, a tool message its ``function_call_output``.  A stored tool
    result without its call (the engine keeps only the text) is a ``system`` note: an
    output whose ``call_id`` matches no call is refused by the API."""
    if m.role == "tool":
        if m.tool_call_id:
            return [function_call_output(m.tool_call_id, m.content)]
        return [message("system", "[tool result] " + m.content)]
    items = [message(m.role, m.content)] if m.content or not m.tool_calls else []
    for tc in m.tool_calls or ():
        fn = tc.get("function") or {}
        items.append(function_call(str(tc.get("id") or ""), str(fn.get("name") or ""), _args(fn)))
    return items


def _args(fn: dict[str, Any]) -> str:
    a = fn.get("arguments")
    return a if isinstance(a, str) else json.dumps(a or {})


def assistant_items(result: RoundResult) -> list[Item]:
    """The model's round echoed back: its text, then each call (arguments the server can
    parse, as ``openai_wire.wire_call`` makes them).  Calls written as text stay text."""
    if result.text_call_format:
        return [message("assistant", result.raw_text)]
    items = [message("assistant", result.text)] if result.text else []
    for c in result.tool_calls:
        args = wire_call(c)["function"]["arguments"]
        items.append(function_call(c.call_id, c.name, args))
    return items


def tool_result_items(runs: list[ToolRun], text_call_format: str = "") -> list[Item]:
    """Results in call order; for calls the model wrote as text, one user message."""
    if text_call_format:
        return [message("user", text_call_results(runs, text_call_format)["content"])]
    return [function_call_output(r.call.call_id, envelope(r.outcome)) for r in runs]


def request_body(model: str, items: list[Item], tools: list[Item], extra: dict[str, Any]) -> bytes:
    """``stream: true`` always; ``store: false`` because every round sends the whole
    conversation and nothing is fetched back by id."""
    body: dict[str, Any] = {"model": model, "input": items, "stream": True, "store": False}
    if tools:
        body["tools"] = tools
    body.update(extra)
    return json.dumps(body, ensure_ascii=False).encode()


def passthrough(sampling: dict[str, Any], reasoning: dict[str, Any] | None) -> dict[str, Any]:
    """Request fields from the agent's sampling keys that are set (``PASSTHROUGH_KEYS``
    renames them) and its ``reasoning``."""
    out = {field: sampling[key] for key, field in PASSTHROUGH_KEYS.items() if key in sampling}
    if reasoning:
        out["reasoning"] = reasoning
    return out


# ----- streamed events (https://platform.openai.com/docs/api-reference/responses-streaming) --

TEXT_DELTA = "response.output_text.delta"
TEXT_DONE = "response.output_text.done"
"""The whole text of a content part; used only when a server sent no deltas for it."""
REFUSAL_DELTA = "response.refusal.delta"
"""A refusal is what the user gets to read instead of an answer: shown as text."""
REASONING_SUMMARY_DELTA = "response.reasoning_summary_text.delta"
REASONING_TEXT_DELTA = "response.reasoning_text.delta"
ITEM_ADDED = "response.output_item.added"
ITEM_DONE = "response.output_item.done"
ARGS_DELTA = "response.function_call_arguments.delta"
ARGS_DONE = "response.function_call_arguments.done"
COMPLETED = "response.completed"
INCOMPLETE = "response.incomplete"
"""Ended early (``incomplete_details.reason``, e.g. max_output_tokens): what came is kept."""
FAILED = "response.failed"
ERROR = "error"

THINKING_DELTAS = (REASONING_SUMMARY_DELTA, REASONING_TEXT_DELTA)


def chat_usage(u: dict[str, Any]) -> dict[str, Any]:
    """``response.usage`` type-checked and renamed for ``SSEParser.result``: both APIs count
    the cached tokens inside the prompt's
    (https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage)."""
    for key in ("input_tokens", "output_tokens"):
        _count(u.get(key), f"response.usage.{key}")
    details = get(u, "input_tokens_details", dict, "response.usage") or {}
    cached = details.get("cached_tokens")
    _count(cached, "response.usage.input_tokens_details.cached_tokens")
    return {
        "prompt_tokens": u.get("input_tokens"),
        "completion_tokens": u.get("output_tokens"),
        "prompt_tokens_details": {"cached_tokens": cached},
    }


def _count(v: Any, where: str) -> None:
    if v is None or (type(v) is int and v >= 0) or (type(v) is float and 0 <= v < 1e18):
        return
    raise wrong(where, v, "a token count")


def error_text(err: dict[str, Any] | None, ended: str) -> str:
    """The message of a ``response.failed`` error or an ``error`` event."""
    if not err:
        return f"response {ended} without an error message"
    msg = err.get("message") or err.get("code") or err.get("type")
    return str(msg) if msg else json.dumps(err)[:300]
