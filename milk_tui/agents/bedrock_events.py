"""Bedrock ConverseStream events → chunks and one RoundResult (pure, no boto3, no I/O).

boto3 hands each event over as a dict with one key (``contentBlockStart``,
``contentBlockDelta``, ``messageStop``, ``metadata`` …).  Text and reasoning deltas become
chunks at once; tool-use input arrives as partial JSON per content block and is assembled
here; usage comes last, in ``metadata``.
"""

from __future__ import annotations

from typing import Any

from milk_tui.agents.base import TextChunk, ThinkingChunk, UsageEvent
from milk_tui.agents.round_backend import RoundResult, ToolCall

Chunk = TextChunk | ThinkingChunk


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
            return self._delta(ev["contentBlockDelta"])
        if "contentBlockStart" in ev:
            body = ev["contentBlockStart"]
            tu = body.get("start", {}).get("toolUse")
            if tu:
                index = body.get("contentBlockIndex", len(self._tools))
                self._tools[index] = [tu.get("toolUseId", ""), tu.get("name", ""), ""]
        elif "messageStop" in ev:
            self.stop_reason = ev["messageStop"].get("stopReason", "")
        elif "metadata" in ev:
            self._usage(ev["metadata"].get("usage") or {})
        return []

    def _delta(self, body: dict[str, Any]) -> list[Chunk]:
        delta = body.get("delta", {})
        if "text" in delta:
            if not delta["text"]:
                return []
            self.text_parts.append(delta["text"])
            return [TextChunk(delta["text"])]
        if "toolUse" in delta:
            slot = self._tools.setdefault(body.get("contentBlockIndex", 0), ["", "", ""])
            slot[2] += delta["toolUse"].get("input", "")
        elif "reasoningContent" in delta:
            rc = delta["reasoningContent"]
            self.signature += rc.get("signature", "")
            if rc.get("text"):
                self.reasoning_parts.append(rc["text"])
                return [ThinkingChunk(rc["text"])]
        return []

    def _usage(self, u: dict[str, Any]) -> None:
        if not u:
            return
        # Bedrock counts are already additive: inputTokens excludes cache reads/writes.
        self.usage = UsageEvent(
            model=self.model,
            prompt_tokens=int(u.get("inputTokens", 0)),
            completion_tokens=int(u.get("outputTokens", 0)),
            cache_read=int(u.get("cacheReadInputTokens", 0)),
            cache_creation=int(u.get("cacheWriteInputTokens", 0)),
        )

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
