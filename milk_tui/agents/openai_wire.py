"""OpenAI chat-completions request shapes and error bodies (pure functions, no I/O).

The streamed response is parsed by ``openai_sse``; this module builds what goes out: the
message list, tool specs, the assistant turn and tool results of a tool round, the request
body, and reads a backend's error body into one line for the user.
"""

from __future__ import annotations

import json
from typing import Any

from milk_tui.agents.base import AgentRequest, ChatMessage, ToolOutcome, ToolSpec
from milk_tui.agents.round_backend import RoundResult, ToolCall, ToolRun
from milk_tui.model.attachment import prompt_parts

ERROR_EXCERPT_CHARS = 300
"""Enough for a backend's message; long HTML error pages are cut."""

Message = dict[str, Any]


def initial_messages(request: AgentRequest) -> list[Message]:
    """System prompt, then the history, then the user's prompt."""
    messages: list[Message] = []
    if request.system_prompt:
        messages.append({"role": "system", "content": request.system_prompt})
    messages += [wire_message(m) for m in request.messages]
    messages.append({"role": "user", "content": user_content(request)})
    return messages


def user_content(request: AgentRequest) -> str | list[dict[str, Any]]:
    """The prompt; text files appended to it; images as ``image_url`` parts with a data URL
    (https://platform.openai.com/docs/guides/images-vision), so the plain string form stays
    for every turn without an image."""
    text, images = prompt_parts(request.prompt, request.attachments, images=request.images)
    if not images:
        return text
    urls = [{"type": "image_url", "image_url": {"url": a.data_url()}} for a in images]
    return [{"type": "text", "text": text}, *urls]


def wire_message(m: ChatMessage) -> Message:
    d: Message = {"role": m.role, "content": m.content}
    if m.tool_calls:
        d["tool_calls"] = m.tool_calls
        if not m.content:
            d["content"] = None
    if m.tool_call_id:
        d["tool_call_id"] = m.tool_call_id
    if m.name:
        d["name"] = m.name
    return d


def wire_tools(specs: list[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {"name": s.name, "description": s.description, "parameters": s.parameters},
        }
        for s in specs
    ]


def request_body(
    model: str,
    messages: list[Message],
    tools: list[dict[str, Any]],
    extra: dict[str, Any],
) -> bytes:
    body: dict[str, Any] = {
        "model": model,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if tools:
        body["tools"] = tools
    body.update(extra)
    return json.dumps(body, ensure_ascii=False).encode()


def assistant_turn(result: RoundResult) -> Message:
    if result.text_call_format:
        # The model wrote its calls as text: echo its own words, not native tool_calls a
        # template without tool support would reject.
        return {"role": "assistant", "content": result.raw_text}
    return {
        "role": "assistant",
        "content": result.text or None,
        "tool_calls": [wire_call(c) for c in result.tool_calls],
    }


def tool_result_messages(runs: list[ToolRun]) -> list[Message]:
    return [
        {"role": "tool", "tool_call_id": r.call.call_id, "content": envelope(r.outcome)}
        for r in runs
    ]


TEXT_RESULT_WRAP = {
    "tool_call_tag": ("<tool_response>\n", "\n</tool_response>"),
    "tools_tag": ("<tool_response>\n", "\n</tool_response>"),
    "bracket_tool_calls": ("[TOOL_RESULTS]", "[/TOOL_RESULTS]"),
    "gemma_special": ("<|tool_response>", "<tool_response|>"),
    "tool_code": ("```tool_output\n", "\n```"),
}
"""How each text format's own chat template frames a result; others get the fenced JSON."""


def text_call_results(runs: list[ToolRun], fmt: str) -> Message:
    """Results of calls the model wrote as text, as ONE user message it can read: chat
    templates without tool support accept only alternating user/assistant turns."""
    head, tail = TEXT_RESULT_WRAP.get(fmt, ("```json\n", "\n```"))
    blocks = [
        head
        + json.dumps(
            {"name": r.call.name, "content": r.outcome.envelope()},
            ensure_ascii=False,
        )
        + tail
        for r in runs
    ]
    return {"role": "user", "content": "\n".join(blocks)}


def wire_call(c: ToolCall) -> dict[str, Any]:
    """Echo a call back to the server.  Unparseable arguments are sent as ``{}`` because
    servers that re-parse history (llama.cpp's templates) would fail the whole request; the
    model still learns what went wrong from the error result that follows."""
    args = c.arguments or "{}"
    try:
        json.loads(args)
    except ValueError:
        args = "{}"
    return {"id": c.call_id, "type": "function", "function": {"name": c.name, "arguments": args}}


def envelope(o: ToolOutcome) -> str:
    """Tool results travel as JSON (``ToolOutcome.envelope``)."""
    return json.dumps(o.envelope(), ensure_ascii=False)


def backend_message(body: bytes) -> str:
    """The backend's own error text: ``error.message`` of an OpenAI-style body, else raw."""
    text = body.decode(errors="replace").strip()
    try:
        obj: Any = json.loads(text)
    except ValueError:
        obj = None
    if isinstance(obj, dict):
        err = obj.get("error", obj)
        if isinstance(err, dict):
            msg = err.get("message") or err.get("detail") or err.get("type")
            if msg:
                text = str(msg)
        elif isinstance(err, str):
            text = err
        elif obj.get("detail"):
            text = str(obj["detail"])
    text = " ".join(text.split())
    if len(text) > ERROR_EXCERPT_CHARS:
        text = text[:ERROR_EXCERPT_CHARS] + "…"
    return text or "(empty body)"


def verdict_body(model: str, prompt: str, grammar: str, extra: dict[str, Any]) -> bytes:
    """A non-streamed one-word answer: constrained by ``grammar`` (llama.cpp) with the first
    token's log-probs, or ``grammar`` "" for a server that refused those fields."""
    return constrained_body(model, prompt, grammar, extra, max_tokens=8, logprobs=bool(grammar))


def constrained_body(
    model: str,
    prompt: str,
    grammar: str,
    extra: dict[str, Any],
    *,
    max_tokens: int,
    logprobs: bool = False,
) -> bytes:
    """A non-streamed answer at temperature 0 whose form ``grammar`` (a llama.cpp GBNF,
    "" for none) fixes; with the first tokens' log-probs when ``logprobs``."""
    body: dict[str, Any] = {**extra, "model": model}
    body.update(
        messages=[{"role": "user", "content": prompt}],
        stream=False,
        temperature=0,
        max_tokens=max_tokens,
    )
    if grammar:
        body["grammar"] = grammar
    if logprobs:
        body.update(logprobs=True, top_logprobs=20)
    return json.dumps(body, ensure_ascii=False).encode()


def completion_text(data: Any) -> str:
    """The message text of a non-streamed chat completion ("" when it has none)."""
    try:
        return str(data["choices"][0]["message"]["content"] or "")
    except (KeyError, IndexError, TypeError):
        return ""


def first_token_logprobs(data: Any) -> tuple[float, dict[str, float]] | None:
    """(the first generated token's log-prob, {top token: log-prob}) of a non-streamed
    completion, or None when the server sent no ``logprobs``."""
    try:
        first = data["choices"][0]["logprobs"]["content"][0]
        top = {str(t["token"]): float(t["logprob"]) for t in first.get("top_logprobs") or []}
        return float(first["logprob"]), top
    except (KeyError, IndexError, TypeError, ValueError):
        return None
