"""The subprocess-agent NDJSON protocol (provider ``subprocess``): one JSON object per
stdout line, told apart by ``type``, turned into agent events.

- ``system{session_id}`` — start of the run (the adapter is stateless: nothing kept);
- ``text_delta{text}`` — reply text;
- ``step{number, thought, code}`` — a smolagents step: the thought as thinking, the code
  as a ``python`` tool call;
- ``observation{content}`` — the result of the last step's code;
- ``final_answer{text}`` — the answer, used as the reply when no text was streamed;
- ``result{is_error, error, input_tokens, output_tokens, total_cost_usd}`` — the end.

Unknown types are ignored (a newer adapter may say more).  A line that is not a JSON
object, or a field of the wrong type, is a ``WireShapeError`` naming it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from milk_tui.agents.base import (
    AgentEvent,
    TextChunk,
    ThinkingChunk,
    ToolCallEvent,
    ToolResultEvent,
    UsageEvent,
)
from milk_tui.agents.wire_shape import WireShapeError, get, json_type

CODE_TOOL = "python"
"""The name a smolagents code step shows under in the transcript."""


@dataclass
class SubprocessResult:
    is_error: bool
    error: str


class NdjsonParser:
    """Feed stdout lines; collects the ``result`` and whether any reply text came."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.result: SubprocessResult | None = None
        self.saw_text = False
        self._step_id = ""
        self._steps = 0

    def feed(self, line: bytes) -> list[AgentEvent]:
        text = line.decode("utf-8", errors="replace").strip()
        if not text:
            return []
        try:
            obj = json.loads(text)
        except json.JSONDecodeError:
            raise WireShapeError(f"not a JSON line: {text[:120]!r}") from None
        if not isinstance(obj, dict):
            raise WireShapeError(f"a line is {json_type(obj)} (expected an object)")
        kind = get(obj, "type", str, "")
        where = kind or "line"
        match kind:
            case "text_delta":
                t = get(obj, "text", str, where) or ""
                self.saw_text = self.saw_text or bool(t)
                return [TextChunk(t)] if t else []
            case "step":
                return self._step(obj)
            case "observation":
                content = get(obj, "content", str, where) or ""
                call_id = self._step_id or self._new_step_id()
                return [ToolResultEvent(call_id, CODE_TOOL, content)]
            case "final_answer":
                t = get(obj, "text", str, where) or ""
                if self.saw_text or not t:
                    return []
                self.saw_text = True
                return [TextChunk(t)]
            case "result":
                return self._result(obj)
        return []

    def _new_step_id(self) -> str:
        self._steps += 1
        self._step_id = f"step-{self._steps}"
        return self._step_id

    def _step(self, obj: dict[str, object]) -> list[AgentEvent]:
        number = obj.get("number")
        if number is not None and type(number) is not int:
            raise WireShapeError(f"step.number is {json_type(number)} (expected an integer)")
        thought = get(obj, "thought", str, "step") or ""
        code = get(obj, "code", str, "step") or ""
        out: list[AgentEvent] = []
        label = f"step {number}" if number is not None else "step"
        if thought:
            out.append(ThinkingChunk(f"{label}: {thought}\n"))
        if code:
            out.append(ToolCallEvent(self._new_step_id(), CODE_TOOL, json.dumps({"code": code})))
        return out

    def _result(self, obj: dict[str, object]) -> list[AgentEvent]:
        is_error = obj.get("is_error") is True
        error = get(obj, "error", str, "result") or ""
        self.result = SubprocessResult(is_error, error)
        nums: list[float] = []
        for key in ("input_tokens", "output_tokens", "total_cost_usd"):
            v = obj.get(key)
            if v is not None and (type(v) not in (int, float)):
                raise WireShapeError(f"result.{key} is {json_type(v)} (expected a number)")
            nums.append(float(v) if isinstance(v, int | float) else 0.0)
        prompt, completion, cost = int(nums[0]), int(nums[1]), nums[2]
        if not (prompt or completion or cost):
            return []
        return [UsageEvent(self.model, prompt, completion, cost_usd=cost)]
