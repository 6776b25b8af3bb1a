"""A session row's stored fields: reading them defensively and merging a concurrent commit.

``meta`` and a turn's ``tool_calls`` are JSON written by us, but a file edited by hand, a
tool or a damaged disk can hold anything: a field that is not JSON, or JSON of the wrong
shape, is dropped (with one warning naming the session) and the rest of the session loads.

Two processes may commit to one session (a TUI and a ``-p`` run in the same folder).  Each
commit compares the row's ``version`` with the one this process last read or wrote; when
another process committed in between, the row is merged field group by field group: a
group this turn changed takes this turn's values, every other group keeps the stored ones,
so a need recorded by one process is never erased by the other's unrelated turn.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import MISSING, asdict, fields
from typing import Any, TypeVar

from milk_tui.model.attachment import AttachmentInfo
from milk_tui.model.session import Session, State, ToolCallRecord

R = TypeVar("R")

META_FIELDS = (
    "current_need", "current_need_set_at", "need_producer", "escalation_session_id",
    "escalation_brief", "last_local_summary", "last_escalation_summary", "escalation_nonce",
    "primary_nonce", "memory_instruction_injected_at", "primary_agent", "escalation_agent",
    "routing_pin",
)  # fmt: skip
MERGE_GROUPS: tuple[tuple[str, ...], ...] = (
    ("current_need", "current_need_set_at", "need_producer"),
    ("state", "escalation_brief", "escalation_session_id"),
    ("name",), ("last_local_summary",), ("last_escalation_summary",), ("escalation_nonce",),
    ("primary_nonce",), ("memory_instruction_injected_at",),
    ("primary_agent", "escalation_agent"), ("routing_pin",),
)  # fmt: skip
"""Fields that only make sense together change together: a need and where it was set; the
waiting state and the escalation it waits on."""
_TYPES: dict[str, type] = {
    f.name: type(f.default) for f in fields(Session) if f.name in META_FIELDS and f.default is not MISSING
}  # fmt: skip


def meta_json(s: Session) -> str:
    return json.dumps({f: getattr(s, f) for f in META_FIELDS})


def parse_meta(raw: object) -> tuple[dict[str, Any], bool]:
    """The known, well-typed fields of a stored ``meta``; the flag says something was dropped."""
    try:
        meta = json.loads(raw or "{}") if isinstance(raw, str | bytes) else None
    except ValueError:
        return {}, True
    if not isinstance(meta, dict):
        return {}, True
    good = {f: meta[f] for f in META_FIELDS if f in meta and _typed(meta[f], _TYPES[f])}
    return good, len(good) != sum(1 for f in META_FIELDS if f in meta)


def _typed(v: object, t: type) -> bool:
    return isinstance(v, t) and not (t is int and isinstance(v, bool))


def _records(raw: str, cls: Callable[..., R]) -> list[R] | None:
    """A stored JSON list of records; None when it is not JSON or not a list of mappings
    with exactly the fields of ``cls``."""
    try:
        items = json.loads(raw)
        if not isinstance(items, list):
            return None
        return [cls(**i) for i in items]
    except (ValueError, TypeError):  # TypeError: an item is not a mapping or has other keys
        return None


def parse_tool_calls(raw: str) -> list[ToolCallRecord] | None:
    """A turn's stored tool calls; None when they cannot be read (not JSON, wrong shape)."""
    out = _records(raw, ToolCallRecord)
    if out is None or not all(
        isinstance(getattr(c, k), str) for c in out for k in ("id", "name", "arguments")
    ):
        return None
    return out


def attachments_json(infos: list[AttachmentInfo]) -> str:
    return json.dumps([asdict(i) for i in infos]) if infos else ""


def parse_attachments(raw: str) -> list[AttachmentInfo] | None:
    """A user turn's stored attachments; None when they cannot be read."""
    out = _records(raw, AttachmentInfo)
    if out is None or not all(
        isinstance(i.size, int) and i.kind in ("image", "text", "shell") for i in out
    ):
        return None
    return out


def parse_state(raw: object) -> State:
    try:
        return State(str(raw))
    except ValueError:
        return State.ROUTING


def row_fields(s: Session) -> dict[str, Any]:
    """What a commit writes besides turns: name, state and the meta fields."""
    return {"name": s.name, "state": s.state.value, **{f: getattr(s, f) for f in META_FIELDS}}


def stored_fields(name: str, state: str, meta: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "state": parse_state(state).value, **meta}


def merge_into(s: Session, theirs: dict[str, Any]) -> None:
    """Take the stored values of every field group this process did not change since it
    last read or wrote the row (``s.stored``); keep this process's values for the others."""
    base = s.stored or theirs  # never read: this process's values win, as before versions
    mine = row_fields(s)
    for group in MERGE_GROUPS:
        if all(mine[f] == base.get(f, mine[f]) for f in group):
            for f in group:
                if f in theirs:
                    v = theirs[f]
                    setattr(s, f, parse_state(v) if f == "state" else v)
