"""Bedrock ConverseStream events → chunks and one RoundResult (pure, no boto3, no I/O).

boto3 hands each event over as a dict with one key (``contentBlockStart``,
``contentBlockDelta``, ``messageStop``, ``metadata`` …).  Text and reasoning deltas become
chunks at once; tool-use input arrives as partial JSON per content block and is assembled
here; usage comes last, in ``metadata``.

botocore decodes the frames but passes the values of fields through unchecked, so every
field read here is type-checked here (one place for this wire format): a wrong type is an
``WireShapeError`` naming the field, worded for the user by ``BedrockAgent``.
"""

from __future__ import annotations

from typing import Any

from milk_tui.agents.base import TextChunk, ThinkingChunk, UsageEvent
from milk_tui.agents.round_backend import RoundResult, ToolCall
from milk_tui.agents.wire_shape import WireShapeError, wrong
from milk_tui.agents.wire_shape import get as _get

Chunk = TextChunk | ThinkingChunk


def _obj(ev: dict[str, Any], key: str) -> dict[str, Any]:
    body = ev[key]
    if type(body) is not dict:
        raise wrong(key, body, "an object")
    return body


_USAGE_KEYS = ("inputTokens", "outputTokens", "cacheReadInputTokens", "cacheWriteInputTokens")


def converse_usage(model: str, u: dict[str, Any]) -> UsageEvent:
    """A Converse ``usage`` object (streamed ``metadata.usage`` or ``converse``'s ``usage``)."""
    # Bedrock counts are already additive: inputTokens excludes cache reads/writes.
    n = {k: _get(u, k, int, "metadata.usage") or 0 for k in _USAGE_KEYS}
    if min(n.values()) < 0:
        raise WireShapeError("metadata.usage holds a negative token count")
    return UsageEvent(
        model=model,
        prompt_tokens=n["inputTokens"],
        completion_tokens=n["outputTokens"],
        cache_read=n["cacheReadInputTokens"],
        cache_creation=n["cacheWriteInputTokens"],
    )


class ConverseStreamParser:
    def __init__(self, model: str) -> None:
        self.model = model
        self.done = False
        """Never set: the event stream itself ends after ``metadata``."""
        self.text_parts: list[str] = []
        self.reasoning_parts: list[str] = []
        self.signature = ""
        self.stop_reason = ""
        self.usage: UsageEvent | None = None
        self._tools: dict[int, list[str]] = {}
        """Content block index → [tool use id, name, input JSON so far]."""

    def feed(self, ev: dict[str, Any]) -> list[Chunk]:
        if "contentBlockDelta" in ev:
            return self._delta(_obj(ev, "contentBlockDelta"))
        if "contentBlockStart" in ev:
            body = _obj(ev, "contentBlockStart")
            start = _get(body, "start", dict, "contentBlockStart") or {}
            tu = _get(start, "toolUse", dict, "contentBlockStart.start")
            if tu:
                index = _get(body, "contentBlockIndex", int, "contentBlockStart")
                self._tools[len(self._tools) if index is None else index] = [
                    _get(tu, "toolUseId", str, "contentBlockStart.start.toolUse") or "",
                    _get(tu, "name", str, "contentBlockStart.start.toolUse") or "",
                    "",
                ]
        elif "messageStop" in ev:
            self.stop_reason = _get(_obj(ev, "messageStop"), "stopReason", str, "messageStop") or ""
        elif "metadata" in ev:
            self._usage(_get(_obj(ev, "metadata"), "usage", dict, "metadata") or {})
        return []

    def _delta(self, body: dict[str, Any]) -> list[Chunk]:
        delta = _get(body, "delta", dict, "contentBlockDelta") or {}
        if "text" in delta:
            text = _get(delta, "text", str, "contentBlockDelta.delta")
            if not text:
                return []
            self.text_parts.append(text)
            return [TextChunk(text)]
        if "toolUse" in delta:
            tu = _get(delta, "toolUse", dict, "contentBlockDelta.delta") or {}
            part = _get(tu, "input", str, "contentBlockDelta.delta.toolUse") or ""
            index = _get(body, "contentBlockIndex", int, "contentBlockDelta")
            slot = self._tools.setdefault(index or 0, ["", "", ""])
            slot[2] += part
        elif "reasoningContent" in delta:
            where = "contentBlockDelta.delta.reasoningContent"
            rc = _get(delta, "reasoningContent", dict, "contentBlockDelta.delta") or {}
            self.signature += _get(rc, "signature", str, where) or ""
            text = _get(rc, "text", str, where)
            if text:
                self.reasoning_parts.append(text)
                return [ThinkingChunk(text)]
        return []

    def _usage(self, u: dict[str, Any]) -> None:
        if u:
            self.usage = converse_usage(self.model, u)

    def close(self) -> list[Chunk]:
        return []

    def tool_calls(self) -> list[ToolCall]:
        """Calls in content-block order."""
        return [ToolCall(t[0], t[1], t[2]) for _, t in sorted(self._tools.items())]

    def result(self) -> RoundResult:
        return RoundResult(
            text="".join(self.text_parts),
            reasoning="".join(self.reasoning_parts),
            tool_calls=self.tool_calls(),
            finish_reason=self.stop_reason,
            usage=self.usage,
            reasoning_signature=self.signature,
        )
