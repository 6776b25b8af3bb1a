"""Turn the Claude CLI's stream-json lines into AgentEvents (pure; no process, no I/O).

Kept apart from the subprocess plumbing so the normalisation rules (no double text after
deltas, sub-agent usage, error wording) are unit-testable line by line.  Line shapes are
the ones the real CLI 2.1.x prints with ``--verbose --include-partial-messages``
(tests/escalation/test_claude_cli_real.py checks them against the real CLI).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from milk_tui.agents.base import (
    AgentEvent,
    TextChunk,
    ThinkingChunk,
    ToolCallEvent,
    ToolResultEvent,
    UsageEvent,
)

SESSION_NOT_FOUND_TEXT = "No conversation found with session ID"
"""What the CLI says when ``--resume`` names a session it cannot find (real CLI 2.1.197)."""

SYNTHETIC_MODEL = "<synthetic>"
"""The CLI's own error 'assistant' messages carry this model; their text is the error,
which we report through AgentError instead of as answer text."""


_TOKEN_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


@dataclass
class ResultInfo:
    """The ``result`` line, reduced to what the agent needs after EOF."""

    is_error: bool
    text: str
    errors: list[str]
    session_id: str
    stop_reason: str
    api_error_status: int | None
    denials: list[dict[str, Any]] = field(default_factory=list)
    """``permission_denials``: ``{tool_name, tool_use_id, tool_input}`` per refused call."""

    def error_text(self) -> str:
        if self.text:
            return self.text
        return "; ".join(e for e in self.errors if e)


@dataclass
class _ToolBlock:
    call_id: str
    name: str
    json_parts: list[str] = field(default_factory=list)


def _usage_event(model: str, usage: dict[str, Any], cost: float, suffix: str) -> UsageEvent:
    def n(key: str) -> int:
        v = usage.get(key)
        return int(v) if isinstance(v, int | float) else 0

    return UsageEvent(
        model=model,
        prompt_tokens=n("input_tokens"),
        completion_tokens=n("output_tokens"),
        cache_read=n("cache_read_input_tokens"),
        cache_creation=n("cache_creation_input_tokens"),
        cost_usd=cost,
        role_suffix=suffix,
    )


def _tool_result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
        )
    return "" if content is None else json.dumps(content)


class StreamJsonParser:
    """Stateful per turn: feed raw lines, get AgentEvents back.

    ``control_request`` lines are not events; the agent answers them itself, so the parser
    hands them back through ``pending_control``.
    """

    def __init__(self, model_label: str) -> None:
        self.model_label = model_label
        self.session_id = ""
        self.result: ResultInfo | None = None
        self.pending_control: list[dict[str, Any]] = []
        self._tools: dict[str, str] = {}  # call id -> tool name (for tool results)
        self._open_tools: dict[int, _ToolBlock] = {}  # content index -> tool being streamed
        self._emitted_calls: set[str] = set()
        self._streamed_msgs: set[str] = set()  # message ids whose text/thinking came as deltas
        self._current_msg = ""
        self._text_so_far = ""
        self._sub_usage: dict[str, dict[str, Any]] = {}  # sub-agent message id -> usage

    # ----- entry point ---------------------------------------------------------------

    def feed(self, raw: bytes | str) -> list[AgentEvent]:
        line = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
        line = line.strip()
        if not line:
            return []
        try:
            obj = json.loads(line)
        except ValueError:
            return []  # the CLI sometimes prints plain text (warnings); not ours to parse
        if not isinstance(obj, dict):
            return []
        kind = obj.get("type")
        if kind == "system":
            sid = obj.get("session_id")
            if isinstance(sid, str) and sid:
                self.session_id = sid
            return []
        if kind == "stream_event":
            return self._stream_event(obj)
        if kind == "assistant":
            return self._assistant(obj)
        if kind == "user":
            return self._user(obj)
        if kind == "control_request":
            self.pending_control.append(obj)
            return []
        if kind == "result":
            return self._result(obj)
        return []

    # ----- line kinds ----------------------------------------------------------------

    def _text(self, text: str) -> list[AgentEvent]:
        if not text:
            return []
        self._text_so_far += text
        return [TextChunk(text)]

    def _stream_event(self, obj: dict[str, Any]) -> list[AgentEvent]:
        if obj.get("parent_tool_use_id"):
            return []  # a sub-agent's own stream: its outcome arrives as a tool result
        ev = obj.get("event") or {}
        etype = ev.get("type")
        if etype == "message_start":
            self._current_msg = str((ev.get("message") or {}).get("id") or "")
            # Successive assistant messages in one turn (text, tool, text) must not glue.
            if self._text_so_far and not self._text_so_far.endswith("\n"):
                return self._text("\n")
            return []
        if etype == "content_block_start":
            block = ev.get("content_block") or {}
            if block.get("type") == "tool_use":
                call_id = str(block.get("id") or "")
                name = str(block.get("name") or "")
                self._open_tools[int(ev.get("index") or 0)] = _ToolBlock(call_id, name)
                self._tools[call_id] = name
            return []
        if etype == "content_block_delta":
            delta = ev.get("delta") or {}
            dtype = delta.get("type")
            if dtype == "text_delta":
                self._streamed_msgs.add(self._current_msg)
                return self._text(str(delta.get("text") or ""))
            if dtype == "thinking_delta":
                self._streamed_msgs.add(self._current_msg)
                t = str(delta.get("thinking") or "")
                return [ThinkingChunk(t)] if t else []
            if dtype == "input_json_delta":
                tb = self._open_tools.get(int(ev.get("index") or 0))
                if tb is not None:
                    tb.json_parts.append(str(delta.get("partial_json") or ""))
            return []
        if etype == "content_block_stop":
            tb = self._open_tools.pop(int(ev.get("index") or 0), None)
            if tb is not None and tb.call_id not in self._emitted_calls:
                self._emitted_calls.add(tb.call_id)
                return [ToolCallEvent(tb.call_id, tb.name, "".join(tb.json_parts) or "{}")]
        return []

    def _assistant(self, obj: dict[str, Any]) -> list[AgentEvent]:
        msg = obj.get("message") or {}
        mid = str(msg.get("id") or "")
        if obj.get("parent_tool_use_id"):
            usage = msg.get("usage")
            if isinstance(usage, dict) and mid:
                self._sub_usage[mid] = usage  # the CLI repeats a message per block: keep last
            return []
        if msg.get("model") == SYNTHETIC_MODEL:
            return []
        streamed = mid in self._streamed_msgs
        out: list[AgentEvent] = []
        for block in msg.get("content") or []:
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "text" and not streamed:
                if self._text_so_far and not self._text_so_far.endswith("\n"):
                    out += self._text("\n")
                out += self._text(str(block.get("text") or ""))
            elif btype == "thinking" and not streamed and block.get("thinking"):
                out.append(ThinkingChunk(str(block["thinking"])))
            elif btype == "tool_use":
                call_id = str(block.get("id") or "")
                name = str(block.get("name") or "")
                self._tools[call_id] = name
                if call_id not in self._emitted_calls:
                    self._emitted_calls.add(call_id)
                    out.append(ToolCallEvent(call_id, name, json.dumps(block.get("input") or {})))
        return out

    def _user(self, obj: dict[str, Any]) -> list[AgentEvent]:
        if obj.get("parent_tool_use_id"):
            return []
        content = (obj.get("message") or {}).get("content")
        if not isinstance(content, list):
            return []
        out: list[AgentEvent] = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "tool_result":
                call_id = str(part.get("tool_use_id") or "")
                out.append(
                    ToolResultEvent(
                        call_id=call_id,
                        name=self._tools.get(call_id, ""),
                        content=_tool_result_text(part.get("content")),
                        is_error=bool(part.get("is_error")),
                    )
                )
        return out

    def _result(self, obj: dict[str, Any]) -> list[AgentEvent]:
        sid = obj.get("session_id")
        if isinstance(sid, str) and sid:
            self.session_id = sid
        errors = obj.get("errors")
        status = obj.get("api_error_status")
        self.result = ResultInfo(
            is_error=bool(obj.get("is_error")),
            text=str(obj.get("result") or ""),
            errors=[str(e) for e in errors] if isinstance(errors, list) else [],
            session_id=self.session_id,
            stop_reason=str(obj.get("stop_reason") or ""),
            api_error_status=int(status) if isinstance(status, int) else None,
            denials=[d for d in obj.get("permission_denials") or [] if isinstance(d, dict)],
        )
        out: list[AgentEvent] = []
        cost = obj.get("total_cost_usd")
        usage = obj.get("usage")
        if isinstance(usage, dict) and (any(usage.get(k) for k in _TOKEN_KEYS) or cost):
            out.append(
                _usage_event(
                    self.model_label,
                    usage,
                    float(cost) if isinstance(cost, int | float) else 0.0,
                    "",
                )
            )
        sub = obj.get("subagent_usage")
        if isinstance(sub, dict):
            out.append(_usage_event(self.model_label, sub, 0.0, "subagent"))
        elif self._sub_usage:
            total: dict[str, int] = {}
            for u in self._sub_usage.values():
                for k in _TOKEN_KEYS:
                    v = u.get(k)
                    total[k] = total.get(k, 0) + (int(v) if isinstance(v, int | float) else 0)
            out.append(_usage_event(self.model_label, total, 0.0, "subagent"))
        elif isinstance(usage, dict):
            extra = _model_usage_beyond(obj.get("modelUsage"), usage)
            if extra:
                out.append(_usage_event(self.model_label, extra, 0.0, "subagent"))
        return out


_MODEL_USAGE_KEYS = {
    "input_tokens": "inputTokens",
    "output_tokens": "outputTokens",
    "cache_read_input_tokens": "cacheReadInputTokens",
    "cache_creation_input_tokens": "cacheCreationInputTokens",
}


def _model_usage_beyond(model_usage: Any, main: dict[str, Any]) -> dict[str, int]:
    """Tokens in ``modelUsage`` (every model call of the run) beyond ``usage`` (main loop).

    The 2.1.x CLI prints no sub-agent assistant lines and no ``subagent_usage``; a Task
    sub-agent's tokens only show up in ``modelUsage`` (verified: usage 300 in, modelUsage
    307 in after a 7-token sub-agent call).  The cost is already in ``total_cost_usd``.
    """
    if not isinstance(model_usage, dict):
        return {}
    extra: dict[str, int] = {}
    for ours, theirs in _MODEL_USAGE_KEYS.items():
        total = sum(int(m.get(theirs) or 0) for m in model_usage.values() if isinstance(m, dict))
        own = main.get(ours)
        diff = total - (int(own) if isinstance(own, int | float) else 0)
        if diff > 0:
            extra[ours] = diff
    return extra
