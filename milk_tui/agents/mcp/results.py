"""An MCP ``CallToolResult`` as the text the model gets: text blocks as they are, images and
audio as a one-line placeholder (the tool-result wires carry text), embedded resources as
their text, structured content as JSON when there is no text; cut at ``MAX_RESULT_CHARS``
with a note saying how much was left out."""

from __future__ import annotations

import json
from typing import Any

from milk_tui.agents.base import ToolOutcome

MAX_RESULT_CHARS = 100_000
"""About 25k tokens: a tool result past this fills a small model's window by itself."""


def outcome_of(server: str, result: Any) -> ToolOutcome:
    parts = [_block_text(b) for b in result.content or []]
    text = "\n".join(p for p in parts if p)
    structured = getattr(result, "structured_content", None)
    if structured is not None and not any(getattr(b, "type", "") == "text" for b in result.content):
        text = json.dumps(structured, ensure_ascii=False)
    if result.is_error and not text:
        text = f"mcp server '{server}' reported an error without a message"
    return ToolOutcome(bounded(text), is_error=bool(result.is_error))


def bounded(text: str, limit: int = MAX_RESULT_CHARS) -> str:
    if len(text) <= limit:
        return text
    left = len(text) - limit
    return text[:limit] + f"\n[result truncated: {left} more characters not shown]"


def _block_text(block: Any) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        size = len(block.data) * 3 // 4
        return f"[{kind} {block.mime_type}, {size} bytes — not shown to the model]"
    if kind == "resource":
        res = block.resource
        text = getattr(res, "text", None)
        if text is not None:
            return f"[resource {res.uri}]\n{text}"
        return f"[resource {res.uri}, binary {getattr(res, 'mime_type', '') or ''}]"
    if kind == "resource_link":
        return f"[resource link {block.uri}{(': ' + block.name) if block.name else ''}]"
    return ""
