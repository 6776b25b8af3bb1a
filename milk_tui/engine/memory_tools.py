"""Memory tools for API agents (OpenAI-compatible, Bedrock), over MemoryService.

Ids are our integer ids (``#12``); a near-duplicate reinforces the existing fact and says
so; ``get_memory`` ranks by FTS relevance × weight
(docs/adr/0005-percepts-in-sqlite-fts5.md) and honours the calling slot's role filter;
an omitted ``producer`` is the calling slot.  Every result is capped at
``max_bytes`` so a large store cannot flood a small model's context.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from milk_tui.agents.base import Slot, ToolEffect, ToolOutcome, ToolSpec
from milk_tui.memory.dedup import tokens
from milk_tui.memory.store import PerceptFilter
from milk_tui.model.percept import Percept
from milk_tui.storage.db import StorageError

DEFAULT_RESULT_MAX_BYTES = 2048
"""Default of the ``local_memory_result_max_bytes`` config key."""
GET_MIN_CONFIDENCE = 0.4
"""``get_memory``'s default ``min_confidence``."""
GET_MAX_RESULTS = 5
"""``get_memory``'s default ``max_results``."""
LIST_ROWS = 50
"""Rows list_memory fetches before the byte cap trims them."""

MEMORY: ToolEffect = "read"
"""The memory tools touch milk's own fact store, never the user's files or the network."""

_SPECS = [
    ToolSpec("record_memory",
             "Remember one reusable, non-obvious fact for later sessions (shared with the other "
             "agent unless consumer targets one of you). Not for transient task state.",
             {"type": "object", "properties": {
                 "content": {"type": "string", "description": "the fact, one sentence"},
                 "subject": {"type": "string", "description": "optional topic label"},
                 "producer": {"type": "string", "enum": ["user", "primary", "escalation"],
                              "description": "who stated the fact (default: you)"},
                 "consumer": {"type": "string", "enum": ["", "all", "primary", "escalation"],
                              "description": "which agent should see it (default: both)"}},
              "required": ["content"]}, effect=MEMORY),
    ToolSpec("get_memory", "Look up remembered facts relevant to a query.",
             {"type": "object", "properties": {
                 "query": {"type": "string"},
                 "min_confidence": {"type": "number", "description": "0..1, default 0.4"},
                 "max_results": {"type": "integer", "description": "default 5"}},
              "required": ["query"]}, effect=MEMORY),
    ToolSpec("list_memory", "List remembered facts as a table (id, scope, weight, ...).",
             {"type": "object", "properties": {
                 "scope": {"type": "string", "enum": ["", "session", "global"]},
                 "producer": {"type": "string", "enum": ["", "user", "primary", "escalation", "system"]},
                 "min_w": {"type": "number"},
                 "pattern": {"type": "string", "description": "words the facts must contain"}},
              "required": []}, effect=MEMORY),
    ToolSpec("forget_memory", "Delete one remembered fact by its id (as shown by list_memory).",
             {"type": "object", "properties": {"id": {"type": "string", "description": "e.g. #12"}},
              "required": ["id"]}, effect=MEMORY),
]  # fmt: skip


def cap(text: str, max_bytes: int) -> str:
    raw = text.encode()
    if max_bytes <= 0 or len(raw) <= max_bytes:
        return text
    marker = "\n… (truncated)"
    return raw[: max(0, max_bytes - len(marker.encode()))].decode(errors="ignore") + marker


def format_table(rows: list[Percept]) -> str:
    """The ``list_memory`` table: one row per fact, content cut at 50 characters."""
    lines = [f"{'ID':<7} {'SCOPE':<7} {'W':<4} {'CORE':<4} {'PRODUCER':<10} {'FOR':<10} CONTENT"]
    for p in rows:
        content = p.content if len(p.content) <= 50 else p.content[:47] + "..."
        lines.append(f"{'#' + str(p.id):<7} {p.scope:<7} {p.weight:.2f} {'yes' if p.core else '':<4} "
                     f"{p.producer:<10} {p.consumer:<10} {content}")  # fmt: skip
    return "\n".join(lines)


class MemoryToolBox:
    """One per agent turn: the slot, session and prompt are fixed for the turn."""

    def __init__(
        self,
        memory: Any,  # MemoryService; its method named ``list`` hides the builtin from mypy
        slot: Slot,
        session_id: str,
        primary_name: str,
        escalation_name: str,
        prompt: str = "",
        *,
        turn_index: int = 0,
        max_bytes: int = DEFAULT_RESULT_MAX_BYTES,
        relevance_gate: bool = True,
        include_record: bool = True,
    ) -> None:
        self.memory = memory
        self.slot = slot
        self.session_id = session_id
        self.names = (primary_name, escalation_name)
        self.prompt = prompt
        self.turn_index = turn_index
        self.max_bytes = max_bytes
        self.relevance_gate = relevance_gate
        self.include_record = include_record

    def specs(self) -> list[ToolSpec]:
        return [s for s in _SPECS if self.include_record or s.name != "record_memory"]

    async def call(self, name: str, arguments: str) -> ToolOutcome:
        try:
            args = json.loads(arguments or "{}")
            if not isinstance(args, dict):
                raise ValueError("arguments must be a JSON object")
        except ValueError as e:
            return ToolOutcome(f"{name}: invalid arguments: {e}", is_error=True)
        handler: Callable[[dict[str, Any]], ToolOutcome] | None = {
            "record_memory": self._record if self.include_record else None,
            "get_memory": self._get, "list_memory": self._list, "forget_memory": self._forget,
        }.get(name)  # fmt: skip
        if handler is None:
            return ToolOutcome(f"unknown tool {name}", is_error=True)
        try:
            out = handler(args)
        except StorageError as e:
            return ToolOutcome(f"{name}: memory unavailable: {e}", is_error=True)
        return ToolOutcome(cap(out.content, self.max_bytes), is_error=out.is_error)

    # ----- handlers ---------------------------------------------------------------------

    def record(self, content: str, consumer: str = "") -> str:
        """Shape of the openai helper's ``on_record_memory(content, consumer)`` callback."""
        return self._record({"content": content, "consumer": consumer}).content

    def _record(self, a: dict[str, Any]) -> ToolOutcome:
        content = str(a.get("content", "")).strip()
        if not content:
            return ToolOutcome("record_memory: content is empty", is_error=True)
        producer = (
            a.get("producer")
            if a.get("producer") in ("user", "primary", "escalation")
            else self.slot
        )
        consumer = a.get("consumer") if a.get("consumer") in ("primary", "escalation") else "all"
        before = self.memory.count()
        p = self.memory.record(content, producer, consumer, scope="session",
                               session_id=self.session_id, turn_index=self.turn_index)  # fmt: skip
        if p is None:
            return ToolOutcome("record_memory: content is empty", is_error=True)
        if self.memory.count() == before and p.content != content:
            pct = round(100 * self.memory.similarity(content, p.content))
            return ToolOutcome(f"reinforced similar percept #{p.id} ({pct}% overlap): {p.content}")
        return ToolOutcome(f"recorded percept #{p.id}")

    def _visible(self, p: Percept) -> bool:
        """Which facts the calling slot may read (SQL twin: ``select.ROLE_FILTER``)."""
        if self.slot == "escalation":
            return p.producer != "escalation" and p.consumer != "primary"
        return p.consumer != "escalation"

    def _get(self, a: dict[str, Any]) -> ToolOutcome:
        query = str(a.get("query", "")).strip()
        if not query:
            return ToolOutcome("get_memory: query is empty", is_error=True)
        min_w = float(a.get("min_confidence") or GET_MIN_CONFIDENCE)
        n = int(a.get("max_results") or GET_MAX_RESULTS)
        flt = PerceptFilter(session_id=self.session_id, min_weight=min_w)
        hits = [p for p in self.memory.search(query, flt, limit=n * 4, any_word=True)
                if self._visible(p)][:n]  # fmt: skip
        if not hits:
            return ToolOutcome("(no relevant memories found)")
        return ToolOutcome("\n".join(f"[{p.weight:.2f}] {p.content}" for p in hits))

    def _list(self, a: dict[str, Any]) -> ToolOutcome:
        flt = PerceptFilter(
            scope=a.get("scope") or None, session_id=self.session_id,
            producer=a.get("producer") or None,
            min_weight=float(a["min_w"]) if a.get("min_w") else None,
        )  # fmt: skip
        pattern = str(a.get("pattern") or "").strip()
        if pattern:
            rows = self.memory.search(pattern, flt, limit=LIST_ROWS * 2)
        elif self.relevance_gate and tokens(self.prompt):
            # relevance gate: only facts sharing at least one word with this turn's prompt
            rows = self.memory.search(self.prompt, flt, limit=LIST_ROWS * 2, any_word=True)
        else:
            rows = self.memory.list(flt, limit=LIST_ROWS * 2)
        rows = [p for p in rows if self._visible(p)][:LIST_ROWS]
        if not rows:
            return ToolOutcome("(no percepts found)")
        return ToolOutcome(format_table(rows))

    def _forget(self, a: dict[str, Any]) -> ToolOutcome:
        raw = str(a.get("id", "")).strip()
        if not raw:
            return ToolOutcome("forget_memory: id is empty", is_error=True)
        ref = raw[1:] if raw.startswith("#") else raw
        if not ref.isdigit():
            return ToolOutcome(
                f"forget_memory: {raw!r} is not a percept id (use e.g. #12)", is_error=True
            )
        p = self.memory.get(int(ref))
        if p is None or not (p.scope == "global" or p.session_id == self.session_id):
            return ToolOutcome(f"percept #{ref} not found")
        editor = self.names[0] if self.slot == "primary" else self.names[1]
        self.memory.delete(p.id, editor=editor or self.slot)
        return ToolOutcome(f"percept #{p.id} deleted")
