"""Chat messages → Bedrock Converse request shapes (pure functions, no boto3).

Converse is stricter than OpenAI chat completions: system text lives in a separate
``system`` array, the conversation must start with a user message and alternate
user/assistant, and a ``toolResult`` must answer a ``toolUse`` of the message right
before it.  Our history (``ChatMessage``) is OpenAI-shaped and may break all three
rules (other agents' turns are system messages, trimmed heads, tool results without
ids), so this module repairs it instead of letting the service reject the turn.
"""

from __future__ import annotations

import json
from typing import Any

from milk_tui.agents.base import ChatMessage, ToolSpec
from milk_tui.agents.round_backend import RoundResult, ToolRun
from milk_tui.model.attachment import Attachment, prompt_parts

ContentBlock = dict[str, Any]
Message = dict[str, Any]

OMITTED_HEAD = "[earlier conversation omitted]"
"""Placeholder user text when the history starts with an assistant message (Converse rejects that)."""

EMPTY_TEXT = "(empty)"
"""Converse rejects blank text blocks; used when a user message would otherwise be empty."""


def _tool_call_parts(call: dict[str, Any]) -> tuple[str, str, str]:
    """(id, name, arguments) from an OpenAI-style or flat tool-call dict."""
    nested = call.get("function")
    fn: dict[str, Any] = nested if isinstance(nested, dict) else call
    args = fn.get("arguments", call.get("input", ""))
    if not isinstance(args, str):
        args = json.dumps(args)
    return str(call.get("id") or call.get("toolUseId") or ""), str(fn.get("name", "")), args


def parse_arguments(raw: str) -> dict[str, Any]:
    """toolUse.input must be a JSON object; anything unparsable becomes {} (the error result
    that follows tells the model what went wrong)."""
    try:
        value = json.loads(raw) if raw.strip() else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def split_system(
    system_prompt: str, messages: list[ChatMessage]
) -> tuple[list[ContentBlock], list[ChatMessage]]:
    """The role prompt first, then every non-empty system message in order; the rest stays."""
    system: list[ContentBlock] = []
    if system_prompt.strip():
        system.append({"text": system_prompt})
    rest: list[ChatMessage] = []
    for m in messages:
        if m.role == "system":
            if m.content.strip():
                system.append({"text": m.content})
        else:
            rest.append(m)
    return system, rest


def to_converse_messages(messages: list[ChatMessage], *, tools_enabled: bool) -> list[Message]:
    """History (no system messages) → alternating Converse messages.

    Tool traffic keeps its structured form only when a toolResult can be paired with the
    toolUse just before it and tools are configured for the request; otherwise both sides
    become plain text so the model still sees what happened.
    """
    out: list[Message] = []
    pending_ids: set[str] = set()
    for m in messages:
        if m.role == "assistant":
            blocks: list[ContentBlock] = []
            if m.content.strip():
                blocks.append({"text": m.content})
            ids: set[str] = set()
            for call in m.tool_calls or []:
                cid, name, args = _tool_call_parts(call)
                if tools_enabled and cid and name:
                    blocks.append(
                        {
                            "toolUse": {
                                "toolUseId": cid,
                                "name": name,
                                "input": parse_arguments(args),
                            }
                        }
                    )
                    ids.add(cid)
                else:
                    blocks.append({"text": f"[tool call {name}] {args}"})
            if blocks:
                _append(out, "assistant", blocks)
            pending_ids = ids
        elif m.role == "tool":
            cid = m.tool_call_id or ""
            if cid and cid in pending_ids:
                _append(
                    out,
                    "user",
                    [
                        {
                            "toolResult": {
                                "toolUseId": cid,
                                "content": [{"text": m.content or EMPTY_TEXT}],
                            }
                        }
                    ],
                )
            else:
                _append(out, "user", [{"text": f"[tool result] {m.content}"}])
        else:
            if m.content.strip():
                _append(out, "user", [{"text": m.content}])
    return _repair(out)


def _append(out: list[Message], role: str, blocks: list[ContentBlock]) -> None:
    """Merge into the previous message when the role repeats (Converse demands alternation)."""
    if out and out[-1]["role"] == role:
        out[-1]["content"].extend(blocks)
    else:
        out.append({"role": role, "content": list(blocks)})


def _repair(out: list[Message]) -> list[Message]:
    if out and out[0]["role"] != "user":
        out.insert(0, {"role": "user", "content": [{"text": OMITTED_HEAD}]})
    # A toolUse not answered by the next message is rejected: degrade it to text.
    for i, msg in enumerate(out):
        if msg["role"] != "assistant":
            continue
        nxt = out[i + 1] if i + 1 < len(out) else None
        answered = {
            b["toolResult"]["toolUseId"]
            for b in (nxt or {}).get("content", [])
            if "toolResult" in b
        }
        for j, b in enumerate(msg["content"]):
            if "toolUse" in b and b["toolUse"]["toolUseId"] not in answered:
                tu = b["toolUse"]
                msg["content"][j] = {"text": f"[tool call {tu['name']}] {json.dumps(tu['input'])}"}
    return out


def append_prompt(
    messages: list[Message], prompt: str, files: tuple[Attachment, ...] = (), *, images: bool = True
) -> list[Message]:
    """The prompt (text files appended) and an ``image`` block per image: Converse takes the
    raw bytes, boto3 encodes them (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ImageBlock.html)."""
    text, shown = prompt_parts(prompt, files, images=images)
    blocks: list[ContentBlock] = [{"text": text if text.strip() else EMPTY_TEXT}]
    blocks += [
        {"image": {"format": a.info.mime.split("/")[1], "source": {"bytes": a.data}}} for a in shown
    ]
    _append(messages, "user", blocks)
    return messages


def tool_config(specs: list[ToolSpec]) -> dict[str, Any] | None:
    if not specs:
        return None
    return {
        "tools": [
            {
                "toolSpec": {
                    "name": s.name,
                    "description": s.description or s.name,
                    "inputSchema": {"json": s.parameters or {"type": "object", "properties": {}}},
                }
            }
            for s in specs
        ]
    }


def assistant_turn(result: RoundResult, *, tools_enabled: bool) -> Message:
    """The assistant message we feed back in a tool loop.

    Reasoning is only replayed with its signature: Bedrock rejects unsigned reasoning
    blocks, and models with extended thinking require the signed block before toolUse.
    Without a toolConfig in the request Converse rejects toolUse blocks, so the calls
    become text, as they do in ``to_converse_messages``.
    """
    blocks: list[ContentBlock] = []
    if result.reasoning and result.reasoning_signature:
        reasoning = {"text": result.reasoning, "signature": result.reasoning_signature}
        blocks.append({"reasoningContent": {"reasoningText": reasoning}})
    if result.text.strip():
        blocks.append({"text": result.text})
    for c in result.tool_calls:
        if tools_enabled:
            tool_use = {
                "toolUseId": c.call_id,
                "name": c.name,
                "input": parse_arguments(c.arguments),
            }
            blocks.append({"toolUse": tool_use})
        else:
            blocks.append({"text": f"[tool call {c.name}] {c.arguments}"})
    return {"role": "assistant", "content": blocks}


def tool_results_turn(runs: list[ToolRun], *, tools_enabled: bool) -> Message:
    if not tools_enabled:
        text = "\n".join(f"[tool result] {r.outcome.text()}" for r in runs)
        return {"role": "user", "content": [{"text": text or EMPTY_TEXT}]}
    return {
        "role": "user",
        "content": [
            {
                "toolResult": {
                    "toolUseId": r.call.call_id,
                    "content": [{"text": r.outcome.text() or EMPTY_TEXT}],
                    **({"status": "error"} if r.outcome.is_error else {}),
                }
            }
            for r in runs
        ],
    }
